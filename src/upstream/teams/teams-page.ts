import { decode } from '../decode.js';
import { parseBody, textOf } from '../parse.js';
import { listTeamsResponse, type ListTeamsPage } from './list-teams.js';
import { toTeam, type Team } from './team-resource.js';

export const LIST = 'organizations/teams';

/** One page of a listing as vigil keeps it: its teams, and where the next page is. */
export interface TeamsPage {
  teams: Team[];
  links: ListTeamsPage['links'];
  meta: ListTeamsPage['meta'];
}

/**
 * Decodes and validates one page of `organizations/<org>/teams`: pure, so that a large page
 * (100 teams are ~270 kB of JSON) can run on a worker thread, a small one in the collection thread.
 */
export function decodeTeamsPage(input: { body: Uint8Array }): TeamsPage {
  const page = parseBody(listTeamsResponse, decode(textOf(input.body), LIST), LIST);
  return { teams: page.data.map(toTeam), links: page.links, meta: page.meta };
}
