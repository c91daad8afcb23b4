/**
 * One page of a sorted listing, as the real server's paginator cuts it: `perPage` items (0: all)
 * from the first whose token is not before `nextToken`, and the token of the item after the page
 * (the value of the next-token header), none after the last page. A binary search finds the start, so a
 * page of a long listing costs its own length only.
 */
export interface Page<T> {
  items: T[];
  next: string | undefined;
}

export interface Tokens<T> {
  tokenOf(item: T): string;
  /** Whether `item` sorts before the item `token` names. */
  before(item: T, token: string): boolean;
}

export function pageOf<T>(sorted: readonly T[], perPage: number, nextToken: string | undefined, tokens: Tokens<T>): Page<T> {
  let start = 0;
  if (nextToken) {
    let hi = sorted.length;
    while (start < hi) {
      const mid = (start + hi) >>> 1;
      if (tokens.before(sorted[mid] as T, nextToken)) start = mid + 1;
      else hi = mid;
    }
  }
  const end = perPage > 0 ? Math.min(sorted.length, start + perPage) : sorted.length;
  const after = sorted[end];
  return { items: sorted.slice(start, end), next: after === undefined ? undefined : tokens.tokenOf(after) };
}

/** Tokens of the listings ordered by creation (evaluations, deployments): `<CreateIndex>.<ID>`, compared as a number, then a string. */
export const BY_CREATE_INDEX: Tokens<{ CreateIndex: number; ID: string }> = {
  tokenOf: (item) => `${item.CreateIndex}.${item.ID}`,
  before: (item, token) => {
    const dot = token.indexOf('.');
    const index = Number(dot < 0 ? token : token.slice(0, dot));
    const id = dot < 0 ? '' : token.slice(dot + 1);
    return item.CreateIndex < index || (item.CreateIndex === index && item.ID < id);
  },
};

/** The API's name for the header that carries the next page's token (the real agent's `X-Nomad-NextToken`). */
export const NEXT_TOKEN_HEADER = 'X-Scheduler-NextToken';

/**
 * The paging a listing request asks for, or the real server's 400 text for a `per_page` that is not a
 * number. A release that knew no paging (`paged` false) answers everything, whatever was asked.
 */
export function pagingOf(query: URLSearchParams, paged = true): { perPage: number; nextToken: string | undefined } | { error: string } {
  const perPage = paged ? (query.get('per_page') ?? '0') : '0';
  if (!/^\d+$/.test(perPage)) return { error: `failed to parse per_page: ${perPage}` };
  return { perPage: Number(perPage), nextToken: (paged ? query.get('next_token') : null) || undefined };
}
