import type { Job } from '../../jobs/part.js';
import { defineArea } from '../collector.js';
import { collectPart } from '../../jobs/part.js';
import { teamsFamilies, teamsUp, type TeamsListing } from './listing.js';
import { lossFractionFamily, ownersTeamFamily } from './access-holders.js';
import type { TeamsTarget } from '../../config/schema.js';
import { renderGroup } from '../../metrics/render.js';
import { MAX_RATE_LIMIT_WAIT_MS } from '../../upstream/request-spacer.js';
import { backoffOn, firstOf, waitOnRateLimit } from '../../upstream/retry.js';
import { completeAccess, listTeams } from '../../upstream/teams/api.js';
import { clientFor, spacerFor, type BuildContext } from '../../jobs/context.js';
import { TEAMS_PAGE_OFFLOAD_BYTES, decodeBody } from '../offload.js';
import { readSecretFile } from '../../jobs/secret-file.js';

/**
 * The service answers 429 beyond its per-token rate: wait what it advertises, a bounded number of
 * times. A gateway hiccup (502-504) on one page would otherwise throw away the whole listing.
 */
const teamsRetry = firstOf(
  waitOnRateLimit({ maxRetries: 5, defaultMs: 1_000, maxWaitMs: MAX_RATE_LIMIT_WAIT_MS }),
  backoffOn([502, 503, 504], { maxRetries: 2, baseMs: 500, capMs: 2_000 }),
);

/** One job per teams target: list every team of the organization, then render. */
export function teamsJobs(t: TeamsTarget, ctx: BuildContext): Job[] {
  // The service's limit is per token: targets spending the same token file at one service share a budget.
  const budget = spacerFor(ctx, `${new URL(t.address).origin} ${t.token_file}`, t.requests_per_second);
  let requests = 0;
  const client = clientFor('teams', t, ctx, {
    retry: teamsRetry,
    beforeAttempt: (signal) => budget.take(signal),
    onResponse: (_endpoint, status, headers) => {
      requests += 1;
      budget.observe(status, headers);
    },
  });

  const fetch = async (signal: AbortSignal): Promise<TeamsListing> => {
    const before = requests;
    const token = await readSecretFile(t.token_file, 'token_file');
    const listing = await listTeams(client, {
      organization: t.organization,
      token,
      pageSize: t.page_size,
      maxPages: t.max_pages,
      signal,
      decodePage: (body) => decodeBody(ctx, 'teams-page', body, { body }, TEAMS_PAGE_OFFLOAD_BYTES),
    });
    const teams = t.complete_access ? await completeAccess(client, listing.teams, token, signal) : listing.teams;
    return { teams, pages: listing.pages, requests: requests - before, maxTeams: t.max_teams, ownersTeam: t.owners_team };
  };

  return [
    {
      collector: 'teams',
      target: t.name,
      schedule: t.schedule,
      run: async (signal) => [
        await collectPart({
          part: 'teams',
          context: { target: t.name, organization: t.organization },
          fetch: () => fetch(signal),
          families: [...teamsFamilies, ownersTeamFamily],
          up: teamsUp,
          turns: ctx.turns,
        }),
        { part: 'loss_fraction', group: renderGroup([lossFractionFamily], t.loss_alert_fraction, { target: t.name, organization: t.organization }) },
      ],
    },
  ];
}

/** The team-management service: every team of an organization, its members and its access. */
export const teamsArea = defineArea({
  kind: 'teams',
  endpoints: [
    { method: 'GET', path: '/api/v2/organizations/{organization}/teams', feeds: [teamsUp, ...teamsFamilies, ownersTeamFamily] },
    { method: 'GET', path: '/api/v2/teams/{id}', feeds: [teamsUp, ...teamsFamilies] },
  ],
  families: [teamsUp, ...teamsFamilies, ownersTeamFamily, lossFractionFamily],
  jobs: (targets, ctx) => targets.flatMap((t) => teamsJobs(t, ctx)),
});
