import { UpstreamError } from '../../upstream/errors.js';
import type { Get } from '../endpoint.js';

/** The header that carries the next page's token: the vendor's name, and this API's own. */
const NEXT_TOKEN_HEADERS = ['x-nomad-nexttoken', 'x-scheduler-nexttoken'];

function nextToken(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  for (const name of NEXT_TOKEN_HEADERS) {
    const v = headers[name];
    const token = Array.isArray(v) ? v[0] : v;
    if (token) return token;
  }
  return undefined;
}

/** How one listing is paged: its endpoint's id (for errors), what each request adds to the query, and the page bounds. */
export interface NextTokenPaging {
  readonly id: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly pageSize: number;
  readonly maxPages: number;
  /** The config key that sets maxPages, for the error. */
  readonly maxPagesKey: string;
}

/**
 * Every page of a listing of the agent's API (`per_page`, then the `next_token` the previous
 * answer's header gave), each page handed to `page` as it arrives, so that nothing but what the
 * caller keeps of a page outlives it. Any failed page fails the whole listing: a partial listing
 * would read as items gone. A token given twice is a loop; a listing past `maxPages` is too large.
 * Returns the pages fetched.
 */
export async function nextTokenPages<P>(get: Get<P>, paging: NextTokenPaging, page: (value: P) => void): Promise<number> {
  const seen = new Set<string>();
  for (let pages = 1, token: string | undefined; ; pages++) {
    const query = { ...paging.query, per_page: String(paging.pageSize), ...(token ? { next_token: token } : {}) };
    const answer = await get({ query, page: pages });
    page(answer.value);
    const next = nextToken(answer.headers);
    if (next === undefined) return pages;
    if (seen.has(next)) throw new UpstreamError('schema', `${paging.id}: page ${pages} gives next_token ${JSON.stringify(next)} again: the pages loop`);
    if (pages >= paging.maxPages) throw new UpstreamError('too_large', `${paging.id}: pagination goes on past ${paging.maxPagesKey} ${paging.maxPages}`);
    seen.add(next);
    token = next;
  }
}
