import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import type { TeamsCall } from './call.js';
import { teamResource, toTeam, type Team } from './team-resource.js';

/** `GET /api/v2/teams/<team_id>`: one team in its envelope, with every organization-access flag the release has. */
export const showTeamResponse = z.object({ data: teamResource });

/**
 * One team, shown to complete the organization-access flags its list entry leaves out (list answers
 * leave out the newest): called from inside the listing, so its answer reaches the series through
 * the listing it completes, and its failure fails the listing, as a failed page does.
 */
export const showEndpoint = endpoint({
  id: 'teams/show',
  method: 'GET',
  path: '/api/v2/teams/{id}',
  schema: showTeamResponse,
  send: async (c: TeamsCall, id: string) => ({ ...(await c.authorized()), params: { id } }),
  read: async (get): Promise<Team> => toTeam((await get()).value.data),
  needs: "a token that can read the organization's teams (a member's sees visible teams; the organization or owners-team token sees secret ones too)",
  families: [],
  switch: {
    key: 'complete_access',
    default: false,
    help: 'one more request per team whose list entry lacks any organization-access flag (list answers leave out the newest)',
  },
});
