import { z } from 'zod';
import { family, single, type Family } from '../../metrics/family.js';
import { decode } from '../../upstream/decode.js';
import { UpstreamError } from '../../upstream/errors.js';
import { parseBody, textOf } from '../../upstream/parse.js';
import { numberish } from '../../upstream/schema-helpers.js';
import { ownersTeamFamily } from './access-holders.js';
import type { TeamsCall } from './call.js';
import { brokenRules } from './consistency-rules.js';
import { completeAccess, listTeams, type TeamsPage } from './pages.js';
import { showEndpoint } from './show.js';
import { TeamsTally, type TeamsListing } from './tally.js';
import { teamResource, toTeam } from './team-resource.js';
import { endpoint, offloaded } from '../endpoint.js';

/** `GET /api/v2/organizations/<org>/teams`: one page of teams, and where the next one is. */
const pageNumber = numberish.pipe(z.number().int().min(1));

export const listTeamsResponse = z.object({
  data: z.array(teamResource),
  links: z.object({ next: z.string().nullish() }).nullish(),
  meta: z
    .object({
      pagination: z
        .object({
          'current-page': pageNumber.nullish(),
          'next-page': pageNumber.nullish(),
          'total-pages': numberish.pipe(z.number().int().min(0)).nullish(),
          'total-count': numberish.pipe(z.number().int().min(0)).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

export type ListTeamsPage = z.output<typeof listTeamsResponse>;

/** The page a listing asked for, and its page[size]. */
export interface AskedPage {
  page: number;
  size: number;
}

/**
 * An answer is bounded by what was asked: a page holding more teams than its page[size] is refused
 * before any of its teams is read (a broken or hostile service would otherwise fill a listing with
 * tens of thousands of teams a page).
 */
function refuseOversized(doc: unknown, asked: AskedPage): void {
  const data = (doc as { data?: unknown } | null | undefined)?.data;
  if (Array.isArray(data) && data.length > asked.size) {
    throw new UpstreamError(
      'too_large',
      `${listEndpoint.id}: page ${asked.page} holds ${data.length} teams, more than the page[size] of ${asked.size} asked for`,
    );
  }
}

/**
 * Decodes and validates one page of `organizations/<org>/teams`: pure, so that a large page
 * (100 teams are ~270 kB of JSON) can run on a worker thread, a small one in the collection thread.
 */
export function decodeTeamsPage(input: { body: Uint8Array; asked?: AskedPage }): TeamsPage {
  const doc = decode(textOf(input.body), listEndpoint.id);
  if (input.asked) refuseOversized(doc, input.asked);
  const page = parseBody(listTeamsResponse, doc, listEndpoint.id);
  return { teams: page.data.map(toTeam), links: page.links, meta: page.meta };
}

const FROM_POLL = 'from a scheduled poll of organizations/<organization>/teams';
const TO = ['target', 'organization'] as const;

const byKey = (label: string, counts: ReadonlyMap<string, number>) => [...counts].map(([k, value]) => ({ labels: { [label]: k }, value }));

export const teamsUp = family<boolean>({
  name: 'teams_up',
  help: `1 when the last scheduled listing of the organization's teams succeeded on every page and parsed, else 0.`,
  type: 'gauge',
  section: 'teams',
  labels: [...TO],
  samples: single((ok) => ok),
});

export const teamsFamilies: readonly Family<TeamsListing>[] = [
  family<TeamsListing>({
    name: 'teams_organization_teams',
    help: `Number of teams the token sees, by visibility (secret and organization always present); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'visibility'],
    samples: (l) => byKey('visibility', l.visibility),
  }),
  family<TeamsListing>({
    name: 'teams_team_users',
    help: `users-count of each team (API service accounts included), for at most max_teams teams (those that break a consistency rule first, then in listing order); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'team'],
    // One sample at a time as it is rendered, never a list: an organization keeps up to 20,000 teams by default.
    samples: function* (l) {
      for (const t of l.kept) if (t.usersCount !== undefined) yield { labels: { team: t.name }, value: t.usersCount };
    },
  }),
  family<TeamsListing>({
    name: 'teams_team_info',
    help: `Identity of each team (always 1; sso_team_id empty when unmapped or not reported), for the teams of teams_team_users; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'team', 'team_id', 'visibility', 'sso_team_id'],
    samples: function* (l) {
      for (const t of l.kept) yield { labels: { team: t.name, team_id: t.id, visibility: t.visibility, sso_team_id: t.ssoTeamId }, value: 1 };
    },
  }),
  family<TeamsListing>({
    name: 'teams_untracked_teams',
    help: `Teams beyond max_teams: counted in the organization totals but without teams_team_users, teams_team_info and teams_team_access_inconsistent series; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO],
    samples: single((l) => l.untracked),
  }),
  family<TeamsListing>({
    name: 'teams_organization_access_teams',
    help: `Number of teams holding each organization-access permission (a flag the answer left out counts as not held); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'permission'],
    samples: (l) => byKey('permission', l.held),
  }),
  family<TeamsListing>({
    name: 'teams_organization_access_reported_teams',
    help: `Number of teams whose answer carried each organization-access flag; below the team count, list answers left the flag out and teams_organization_access_teams may undercount it (see complete_access); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'permission'],
    samples: (l) => byKey('permission', l.carried),
  }),
  family<TeamsListing>({
    name: 'teams_team_access_inconsistent',
    help: `1 for each team that breaks a consistency rule of organization access (rule names the flag held without the one it needs); absent for teams that break none; at most max_teams teams; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'team', 'rule'],
    samples: function* (l) {
      for (const t of l.kept) for (const rule of brokenRules(t)) yield { labels: { team: t.name, rule }, value: 1 };
    },
  }),
  family<TeamsListing>({
    name: 'teams_listing_pages',
    help: `Pages the last successful listing read; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO],
    samples: single((l) => l.pages),
  }),
  family<TeamsListing>({
    name: 'teams_listing_requests',
    help: `HTTP requests the last successful listing sent, rate-limit retries and team shows included; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO],
    samples: single((l) => l.requests),
  }),
];

/**
 * A page of teams is decoded on a worker thread from this size: every page of the service's size
 * (100 teams are ~270 kB), and only a small organization's last page (a few teams) in the collection
 * thread. A page's text is one string too large for V8's young generation, so it is allocated where
 * only a full collection frees it: a thousand pages a collection at a million series made the
 * collection thread mark its whole heap every few megabytes. The worker thread's heap holds little
 * between tasks, so marking it costs little; what crosses back is a page's teams, about 10 kB. Measured
 * turn about at a million series (`bench/collect-ab.ts`): 17 % less CPU a collection than decoding
 * each page in the collection thread (docs/performance.md).
 */
export const TEAMS_PAGE_OFFLOAD_BYTES = 64 * 1024;

/**
 * Every team of the organization, from one consistent pass over the pages (and the shows that
 * complete them, when switched on), tallied as the pages arrive. An organization's teams rarely
 * change, and an unchanged page is not decoded again.
 */
export const listEndpoint = endpoint({
  id: 'teams/list',
  method: 'GET',
  path: '/api/v2/organizations/{organization}/teams',
  schema: listTeamsResponse,
  send: async (c: TeamsCall) => ({ ...(await c.authorized()), params: { organization: c.target.organization } }),
  paged: '`page[number]` and `page[size]` (page_size), up to max_pages and max_listing_size',
  offload: offloaded({
    task: decodeTeamsPage,
    from: TEAMS_PAGE_OFFLOAD_BYTES,
    input: (body, c: TeamsCall, _item, sent) => ({ body, asked: { page: sent.page ?? 1, size: c.target.page_size } }),
  }),
  read: async (get, c: TeamsCall, _item, within): Promise<TeamsListing> => {
    const before = c.requests();
    const show = within.get(showEndpoint);
    const t = c.target;
    const req = { id: listEndpoint.id, pageSize: t.page_size, maxPages: t.max_pages, maxBytes: t.max_listing_size, last: c.lastPass };
    const listing = await listTeams(
      get,
      show ? { ...req, completePage: (teams) => completeAccess(teams, show) } : req,
      () => new TeamsTally(t.max_teams, t.owners_team),
    );
    const result = listing.tally.listing(listing.pages, c.requests() - before);
    c.listed(result);
    return result;
  },
  needs: "a token that can read the organization's teams (a member's sees visible teams; the organization or owners-team token sees secret ones too)",
  bounds: [{ items: 'teams', key: 'max_teams', dropped: 'teams_untracked_teams' }],
  up: teamsUp,
  families: [...teamsFamilies, ownersTeamFamily],
});
