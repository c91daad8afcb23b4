import type { UpstreamClient } from '../../upstream/client.js';
import { completeAccess, listTeams, showTeam } from '../../upstream/teams/api.js';
import { listTeamsResponse } from '../../upstream/teams/list-teams.js';
import { showTeamResponse, type Team } from '../../upstream/teams/team-resource.js';
import type { AskedPage, TeamsPage } from '../../upstream/teams/teams-page.js';
import { endpoint } from '../endpoint.js';
import { ownersTeamFamily } from './access-holders.js';
import { teamsFamilies, teamsUp } from './listing.js';
import { TeamsTally, type TeamsListing } from './tally.js';

/** What a listing takes: the target's pooled client and settings, its token (read once a run), the run's signal. */
export interface TeamsCall {
  client: UpstreamClient;
  token: () => Promise<string>;
  signal: AbortSignal;
  organization: string;
  pageSize: number;
  maxPages: number;
  /** Bound on the bytes of one pass's pages together. */
  maxBytes: number;
  maxTeams: number;
  ownersTeam: string;
  completeAccess: boolean;
  /** How a page's body becomes its teams (off the collection thread for a large page). */
  decodePage: (body: Buffer, asked: AskedPage) => Promise<TeamsPage>;
  /** HTTP requests the target's client made so far (retries and shows included). */
  requests: () => number;
  /** Told of each complete listing (to report teams past max_teams). */
  listed?: (listing: TeamsListing) => void;
}

/** One team, shown to complete the organization-access flags a list entry leaves out. */
export const showEndpoint = endpoint({
  id: 'teams/show',
  method: 'GET',
  path: '/api/v2/teams/{id}',
  schema: showTeamResponse,
  when: 'in a listing, behind its switch: once for each team whose list entry lacks an organization-access flag',
  part: 'teams',
  needs: "a token that can read the organization's teams (a member's sees visible teams; the organization or owners-team token sees secret ones too)",
  fetch: ({ client, id, token, signal }: { client: UpstreamClient; id: string; token: string; signal: AbortSignal }): Promise<Team> =>
    showTeam(client, id, token, signal),
  up: teamsUp,
  families: [],
  // Its answer reaches the series through the listing it completes.
  derived: teamsFamilies,
  switch: {
    key: 'complete_access',
    default: false,
    help: 'one more request per team whose list entry lacks any organization-access flag (list answers leave out the newest)',
  },
});

/** Every team of the organization, from one consistent pass over the pages (and the shows that complete them). */
export const listEndpoint = endpoint({
  id: 'teams/list',
  method: 'GET',
  path: '/api/v2/organizations/{organization}/teams',
  schema: listTeamsResponse,
  when: 'every run, page by page',
  part: 'teams',
  needs: "a token that can read the organization's teams (a member's sees visible teams; the organization or owners-team token sees secret ones too)",
  fetch: async (call: TeamsCall): Promise<TeamsListing> => {
    const before = call.requests();
    const token = await call.token();
    const { client, signal } = call;
    const show = (id: string) => showEndpoint.fetch({ client, id, token, signal });
    const listing = await listTeams(
      client,
      {
        organization: call.organization,
        token,
        pageSize: call.pageSize,
        maxPages: call.maxPages,
        maxBytes: call.maxBytes,
        signal,
        decodePage: call.decodePage,
        ...(call.completeAccess ? { completePage: (teams: Team[]) => completeAccess(teams, show) } : {}),
      },
      () => new TeamsTally(call.maxTeams, call.ownersTeam),
    );
    const result = listing.tally.listing(listing.pages, call.requests() - before);
    call.listed?.(result);
    return result;
  },
  up: teamsUp,
  families: [...teamsFamilies, ownersTeamFamily],
});

export const TEAMS_ENDPOINTS = [listEndpoint, showEndpoint] as const;
