import { decode } from '../decode.js';
import { UpstreamError } from '../errors.js';
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
    throw new UpstreamError('too_large', `${LIST}: page ${asked.page} holds ${data.length} teams, more than the page[size] of ${asked.size} asked for`);
  }
}

/**
 * Decodes and validates one page of `organizations/<org>/teams`: pure, so that a large page
 * (100 teams are ~270 kB of JSON) can run on a worker thread, a small one in the collection thread.
 */
export function decodeTeamsPage(input: { body: Uint8Array; asked?: AskedPage }): TeamsPage {
  const doc = decode(textOf(input.body), LIST);
  if (input.asked) refuseOversized(doc, input.asked);
  const page = parseBody(listTeamsResponse, doc, LIST);
  return { teams: page.data.map(toTeam), links: page.links, meta: page.meta };
}
