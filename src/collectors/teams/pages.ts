import { UpstreamError } from '../../upstream/errors.js';
import type { Get } from '../endpoint.js';
import { ORGANIZATION_ACCESS, carries, type Team } from './team-resource.js';

/** The service's largest page: it clamps larger ones. */
export const TEAMS_MAX_PAGE_SIZE = 100;

/** One page of a listing as vigil keeps it: its teams, and where the next page is. */
export interface TeamsPage {
  teams: Team[];
  links: { next?: string | null | undefined } | null | undefined;
  meta: { pagination?: PageMeta | null | undefined } | null | undefined;
}

interface PageMeta {
  'current-page'?: number | null | undefined;
  'next-page'?: number | null | undefined;
  'total-pages'?: number | null | undefined;
  'total-count'?: number | null | undefined;
}

/** What one listing of an organization's teams is bounded by, and what completes its pages. */
export interface ListingRequest {
  /** The listing endpoint's id, which its errors name. */
  id: string;
  pageSize: number;
  /** Bound on pages, against a server whose pagination never ends. */
  maxPages: number;
  /** Bound on the bytes of one pass's pages together (max_listing_size). */
  maxBytes: number;
  /** Completes a page's teams before they are tallied (complete_access). */
  completePage?: (teams: Team[]) => Promise<Team[]>;
  /** The target's last complete pass, which this one's unchanged pages need not be checked against. */
  last?: LastPass;
}

/**
 * The pages of a target's last complete pass, as they were handed over (the memo hands an unchanged
 * page out again as the same object, at the same page number). Pages that are all those, each in
 * its place, hold no team twice, as that pass found: a pass checks them only once one of its pages
 * is new. An organization's 100,000 teams at a million series otherwise cost a set of their ids at
 * every run, changed or not.
 */
export interface LastPass {
  pages: readonly Team[][];
}

/**
 * What a pass does with each team as its page arrives. A page is dropped once tallied, so a
 * listing holds what its tally keeps, not every team the service sent.
 */
export interface TeamsTally {
  add(team: Team): void;
}

export interface TeamListing<T> {
  /** The tally of the pass that was kept. */
  tally: T;
  /** Pages fetched for it. */
  pages: number;
}

/**
 * The page after `current`: meta.pagination's next-page when the answer has pagination meta, else
 * the page number in links.next; undefined on the last page.
 */
export function nextPageNumber(page: Pick<TeamsPage, 'links' | 'meta'>, current: number, id: string): number | undefined {
  const meta = page.meta?.pagination;
  if (meta && meta['next-page'] !== undefined) return meta['next-page'] ?? undefined;
  const next = page.links?.next;
  if (!next) return undefined;
  const number = new URL(next, 'http://relative.invalid').searchParams.get('page[number]');
  if (number === null || !/^\d+$/.test(number)) {
    throw new UpstreamError('schema', `${id}: links.next has no page[number] after page ${current}`);
  }
  return Number(number);
}

const schemaError = (req: ListingRequest, msg: string) => new UpstreamError('schema', `${req.id}: ${msg}`);

/** The teams changed under a listing (a page shifted): the pages do not add up to one listing. */
class ListingChanged extends Error {}

/** What one pass has taken so far: the bytes of its pages, and the ids of its teams (one on two pages means they shifted). */
class Pass<T extends TeamsTally> {
  private readonly ids = new Set<string>();
  private bytes = 0;
  private count = 0;
  /** The pages taken, each as it was handed over. */
  readonly pages: Team[][] = [];
  /** Pages taken without a check, each the one in its place in the last complete pass; undefined once a page is new. */
  private unchecked: Team[][] | undefined = [];

  constructor(
    private readonly req: ListingRequest,
    readonly tally: T,
  ) {}

  get teams(): number {
    return this.count;
  }

  /** Counts a page's bytes against max_listing_size before it is decoded. */
  spend(bytes: number, pages: number): void {
    this.bytes += bytes;
    if (this.bytes <= this.req.maxBytes) return;
    const which = pages === 1 ? 'page 1 holds' : `pages 1-${pages} add up to`;
    throw new UpstreamError('too_large', `${this.req.id}: ${which} ${this.bytes} bytes, more than max_listing_size ${this.req.maxBytes}`);
  }

  async take(teams: Team[]): Promise<void> {
    const place = this.pages.push(teams) - 1;
    if (this.unchecked && this.req.last?.pages[place] === teams) this.unchecked.push(teams);
    else {
      for (const page of this.unchecked ?? []) this.check(page);
      this.unchecked = undefined;
      this.check(teams);
    }
    this.count += teams.length;
    for (const t of this.req.completePage ? await this.req.completePage(teams) : teams) this.tally.add(t);
  }

  private check(teams: readonly Team[]): void {
    for (const t of teams) {
      if (this.ids.has(t.id)) throw new ListingChanged(`team ${t.id} on two pages`);
      this.ids.add(t.id);
    }
  }
}

async function onePass<T extends TeamsTally>(get: Get<TeamsPage>, req: ListingRequest, pass: Pass<T>): Promise<TeamListing<T>> {
  let total: number | undefined;
  let bound = req.maxPages;
  for (let number = 1, pages = 1; ; pages++) {
    const asked = { query: { 'page[number]': String(number), 'page[size]': String(req.pageSize) }, page: number };
    const page = (await get(asked, (bytes) => pass.spend(bytes, pages))).value;
    const meta = page.meta?.pagination;
    const current = meta?.['current-page'];
    if (current != null && current !== number) throw schemaError(req, `asked for page ${number}, got page ${current}`);
    const count = meta?.['total-count'] ?? undefined;
    if (pages === 1) {
      total = count;
      const totalPages = meta?.['total-pages'];
      if (totalPages != null && totalPages > req.maxPages) {
        throw new UpstreamError('too_large', `${req.id}: ${totalPages} pages exceed max_pages ${req.maxPages}`);
      }
      if (totalPages != null) bound = Math.max(1, totalPages);
    } else if (count !== undefined && total !== undefined && count !== total) {
      throw new ListingChanged(`total-count went from ${total} to ${count}`);
    }
    await pass.take(page.teams);
    const next = nextPageNumber(page, number, req.id);
    if (next === undefined) {
      if (total !== undefined && pass.teams !== total) throw new ListingChanged(`${pass.teams} teams listed, total-count ${total}`);
      if (req.last) req.last.pages = pass.pages;
      return { tally: pass.tally, pages };
    }
    if (next <= number) throw schemaError(req, `next page ${next} is not after page ${number}`);
    if (pages >= bound) {
      throw bound === req.maxPages
        ? new UpstreamError('too_large', `${req.id}: pagination goes on past max_pages ${req.maxPages}`)
        : schemaError(req, `pagination goes on past the ${bound} pages it announced`);
    }
    number = next;
  }
}

/**
 * Every team of an organization the token may see, from one consistent pass over the pages, each
 * team handed to a fresh tally of `start` as its page arrives. When the teams change under the pass
 * (a page repeats a team or the total moves), it starts over once with a new tally; any failed page
 * fails the whole listing, so a partial listing is never returned.
 */
export async function listTeams<T extends TeamsTally>(get: Get<TeamsPage>, req: ListingRequest, start: () => T): Promise<TeamListing<T>> {
  for (let pass = 1; ; pass++) {
    try {
      return await onePass(get, req, new Pass(req, start()));
    } catch (e) {
      if (!(e instanceof ListingChanged)) throw e;
      if (pass >= 2) throw schemaError(req, `teams changed during two listings in a row (${e.message})`);
    }
  }
}

const lacksAccessFlags = (t: Team) => ORGANIZATION_ACCESS.some((k) => !carries(t, k));

/**
 * List answers leave out the newest organization-access flags; a show answer has them. Shows each
 * team whose list entry lacks any (a few at a time: the request spacer sets the pace) with `show`
 * and takes its flags from there. Any failed show fails the whole completion, as a failed page does.
 */
export async function completeAccess(teams: readonly Team[], show: (id: string) => Promise<Team>, concurrency = 4): Promise<Team[]> {
  const out = [...teams];
  const todo = out.flatMap((t, i) => (lacksAccessFlags(t) ? [i] : []));
  const worker = async () => {
    for (let i = todo.shift(); i !== undefined; i = todo.shift()) {
      const listed = out[i] as Team;
      try {
        out[i] = { ...listed, access: (await show(listed.id)).access };
      } catch (e) {
        todo.length = 0; // the result is lost anyway: stop the other workers spending the budget
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, worker));
  return out;
}
