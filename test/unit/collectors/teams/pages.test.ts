import { ORGANIZATION_ACCESS, carries, holds } from '../../../../src/collectors/teams/team-resource.js';
import type http from 'node:http';
import { beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamClient } from '../../../../src/upstream/client.js';
import { completeAccess, listTeams, type ListingRequest, type TeamsPage } from '../../../../src/collectors/teams/pages.js';
import { decodeTeamsPage, listEndpoint } from '../../../../src/collectors/teams/list.js';
import { showEndpoint } from '../../../../src/collectors/teams/show.js';
import type { Team } from '../../../../src/collectors/teams/team-resource.js';
import type { Get } from '../../../../src/collectors/endpoint.js';
import { callAs } from '../../../helpers/endpoint-call.js';
import { upstreamFailure } from '../../../helpers/failures.js';
import { fixture } from '../../../helpers/fixtures.js';
import { loopbackUpstream } from '../../../helpers/loopback-upstream.js';

/** A loopback team-management service whose answer to each request is set by each test. */
type Answer = { status?: number; body: unknown; headers?: Record<string, string> };
let answer: (page: number, req: http.IncomingMessage) => Answer;
const requests: http.IncomingMessage[] = [];
const upstream = loopbackUpstream((req, res) => {
  requests.push(req);
  const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page[number]') ?? 0);
  const a = answer(page, req);
  res.writeHead(a.status ?? 200, { 'content-type': 'application/vnd.api+json', ...a.headers }).end(JSON.stringify(a.body));
});
const client = (): UpstreamClient => upstream.client();
beforeEach(() => {
  requests.length = 0;
});

const req = (extra: Partial<ListingRequest> = {}): ListingRequest => ({ id: 'teams/list', pageSize: 2, maxPages: 100, maxBytes: 1 << 30, ...extra });

/** What a teams target's calls share, as far as a listing and a show read it: the organization, the page size, the token. */
const teamsCall = (r: Pick<ListingRequest, 'pageSize'>) => ({
  target: { organization: 'acme', page_size: r.pageSize },
  authorized: async () => ({ headers: { accept: 'application/vnd.api+json', authorization: 'Bearer tok-123' } }),
});

/** The listing endpoint's call, its pages read by `listTeams` with the test's tally. */
const listTeamsOf = <T extends { add(t: Team): void }>(r: ListingRequest, start: () => T) =>
  callAs(listEndpoint as never, teamsCall(r), client(), { read: ((get: Get<TeamsPage>) => listTeams(get, r, start)) as never }) as ReturnType<
    typeof listTeams<T>
  >;
const show = (id: string) => callAs(showEndpoint as never, teamsCall({ pageSize: 2 }), client(), { item: id }) as Promise<Team>;
/** A tally that keeps every team it is given, to look at what a listing passed on. */
const everyTeam = () => {
  const teams: Team[] = [];
  return { teams, add: (t: Team) => void teams.push(t) };
};

/** A listing's teams, as its pass handed them on, and its pages. */
const list = async (r: ListingRequest) => {
  const l = await listTeamsOf(r, everyTeam);
  return { teams: l.tally.teams, pages: l.pages };
};
const pages =
  (...names: string[]) =>
  (page: number): Answer => ({ body: fixture(`teams/${names[page - 1] ?? 'missing'}`) });
const THREE = pages('page-1-of-3.json', 'page-2-of-3.json', 'page-3-of-3.json');
const requestedPages = () => requests.map((r) => new URL(r.url ?? '/', 'http://x').searchParams.get('page[number]'));

/** A page shaped like the fixtures, with its pagination meta replaced. */
function pageWith(pagination: Record<string, number | null>, data: unknown[] = []): Answer {
  return { body: { data, links: {}, meta: { pagination } } };
}

describe('GET organizations/<org>/teams across pages', () => {
  it('follows meta.pagination over three pages and keeps every team, in order', async () => {
    answer = THREE;
    const listing = await list(req());
    expect(listing.teams.map((t) => t.name)).toEqual(['owners', 'platform', 'auditors', 'legacy-ops', 'readers']);
    expect(listing.pages).toBe(3);
    expect(requestedPages()).toEqual(['1', '2', '3']);
  });

  it('sends percent-encoded page parameters, the JSON:API media type and the bearer token', async () => {
    answer = THREE;
    await list(req());
    const first = requests[0]!;
    expect(first.url).toBe('/api/v2/organizations/acme/teams?page%5Bnumber%5D=1&page%5Bsize%5D=2');
    expect(first.headers.accept).toBe('application/vnd.api+json');
    expect(first.headers.authorization).toBe('Bearer tok-123');
  });

  it('follows links.next when the answer has no pagination meta, asking its own server for the page', async () => {
    answer = pages('links-only-page-1.json', 'links-only-page-2.json');
    const listing = await list(req());
    expect(listing.teams.map((t) => t.name)).toEqual(['owners', 'platform', 'auditors', 'legacy-ops']);
    expect(requestedPages()).toEqual(['1', '2']);
  });

  it('takes a single page without meta or links as the whole listing', async () => {
    answer = () => ({ body: { data: (fixture('teams/page-3-of-3.json') as { data: unknown[] }).data } });
    expect((await list(req())).teams.map((t) => t.name)).toEqual(['readers']);
  });
});

describe('a failed page fails the whole listing', () => {
  it('returns no teams when page 2 answers 500, and says why', async () => {
    answer = (page) =>
      page === 2 ? { status: 500, body: { errors: [{ status: '500', title: 'internal server error', detail: 'injected page fault' }] } } : THREE(page);
    const err = await upstreamFailure(list(req()));
    expect(err).toMatchObject({ reason: 'http_5xx', status: 500 });
    expect(err.message).toBe('teams/list: HTTP 500: internal server error: injected page fault');
    expect(requestedPages()).toEqual(['1', '2']);
  });

  it('fails with schema when a page does not parse, naming the field', async () => {
    answer = (page) => (page === 3 ? { body: { data: [{ id: 'team-1', type: 'teams', attributes: { 'users-count': 1 } }] } } : THREE(page));
    const err = await upstreamFailure(list(req()));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain('data.0.attributes.name');
  });
});

describe('error bodies end up in the message', () => {
  it.each([
    [
      'a JSON:API object with a string status',
      'error-429-string-status.json',
      429,
      'rate_limited',
      'HTTP 429: Too many requests: You have exceeded the API rate limit.',
    ],
    ['a JSON:API object with a numeric status', 'error-404-numeric-status.json', 404, 'http_4xx', 'HTTP 404: not found'],
    ['a plain string error', 'error-401-plain.json', 401, 'http_4xx', 'HTTP 401: unauthorized'],
  ])('%s', async (_what, file, status, reason, message) => {
    answer = () => ({ status, body: fixture(`teams/${file}`) });
    const err = await upstreamFailure(list(req()));
    expect(err).toMatchObject({ reason, status });
    expect(err.message).toBe(`teams/list: ${message}`);
  });
});

describe('pagination that does not end', () => {
  it('stops at max_pages when the server always has a next page', async () => {
    const readers = (fixture('teams/page-3-of-3.json') as { data: object[] }).data[0];
    answer = (page) => pageWith({ 'current-page': page, 'next-page': page + 1 }, [{ ...readers, id: `team-${page}` }]);
    const err = await upstreamFailure(list(req({ maxPages: 5 })));
    expect(err.reason).toBe('too_large');
    expect(err.message).toContain('max_pages 5');
    expect(requests).toHaveLength(5);
  });

  it('stops at the total-pages the first page announced', async () => {
    answer = (page) => pageWith({ 'current-page': page, 'next-page': page + 1, 'total-pages': 2 });
    const err = await upstreamFailure(list(req()));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain('past the 2 pages it announced');
    expect(requests).toHaveLength(2);
  });

  it('refuses a next page that is not after the current one', async () => {
    answer = (page) => pageWith({ 'current-page': page, 'next-page': 1 });
    expect((await upstreamFailure(list(req()))).message).toContain('next page 1 is not after page 1');
    expect(requests).toHaveLength(1);
  });

  it('refuses an answer for another page than the one asked for', async () => {
    answer = () => pageWith({ 'current-page': 1, 'next-page': 2 });
    expect((await upstreamFailure(list(req()))).message).toContain('asked for page 2, got page 1');
  });

  it('gives up at once when the first page announces more than max_pages', async () => {
    answer = THREE;
    expect((await upstreamFailure(list(req({ maxPages: 2 })))).reason).toBe('too_large');
    expect(requests).toHaveLength(1);
  });

  it('refuses a links.next without a page number', async () => {
    answer = () => ({ body: { data: [], links: { next: 'https://teams.example/api/v2/organizations/acme/teams?cursor=abc' } } });
    expect((await upstreamFailure(list(req()))).reason).toBe('schema');
  });
});

describe('an answer bounded by what was asked', () => {
  it('fails a page holding more teams than the page[size] asked for, naming the page and both sizes', async () => {
    answer = THREE;
    const err = await upstreamFailure(listTeamsOf(req({ pageSize: 1 }), everyTeam));
    expect(err.reason).toBe('too_large');
    expect(err.message).toBe('teams/list: page 1 holds 2 teams, more than the page[size] of 1 asked for');
    expect(requests).toHaveLength(1);
  });

  it('checks the count before reading the teams (the same check where a worker thread decodes)', () => {
    const body = Buffer.from(JSON.stringify({ data: [{ not: 'a team' }, {}, {}] }));
    expect(() => decodeTeamsPage({ body, asked: { page: 7, size: 2 } })).toThrow('page 7 holds 3 teams, more than the page[size] of 2 asked for');
  });

  it('fails a listing whose pages add up to more than max_listing_size, asking for no page after it', async () => {
    answer = THREE;
    const first = Buffer.byteLength(JSON.stringify(THREE(1).body));
    const err = await upstreamFailure(listTeamsOf(req({ maxBytes: first + 10 }), everyTeam));
    expect(err.reason).toBe('too_large');
    expect(err.message).toMatch(new RegExp(`^teams/list: pages 1-2 add up to \\d+ bytes, more than max_listing_size ${first + 10}$`));
    expect(requestedPages()).toEqual(['1', '2']);
  });

  it('takes a listing of exactly max_listing_size', async () => {
    answer = THREE;
    const total = [1, 2, 3].reduce((n, p) => n + Buffer.byteLength(JSON.stringify(THREE(p).body)), 0);
    expect((await listTeamsOf(req({ maxBytes: total }), everyTeam)).pages).toBe(3);
  });
});

describe('a listing is one consistent pass', () => {
  /** Page 2 of the first pass reports one team more, as if a team was created meanwhile. */
  function changingOnce(passesThatChange: number): (page: number) => Answer {
    let pass = 0;
    return (page) => {
      if (page === 1) pass += 1;
      const a = THREE(page);
      if (page === 2 && pass <= passesThatChange) {
        const body = structuredClone(a.body) as { meta: { pagination: Record<string, number> } };
        body.meta.pagination['total-count'] = 6;
        return { body };
      }
      return a;
    };
  }

  it('starts over once when the teams change under it, and keeps only the second pass', async () => {
    answer = changingOnce(1);
    const listing = await list(req());
    expect(listing.teams).toHaveLength(5);
    expect(listing.pages).toBe(3);
    expect(requestedPages()).toEqual(['1', '2', '1', '2', '3']);
  });

  it('fails when they change under two passes in a row', async () => {
    answer = changingOnce(2);
    const err = await upstreamFailure(list(req()));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain('total-count went from 5 to 6');
  });

  it('starts over when a team shows up on two pages (the pages shifted under it)', async () => {
    let pass = 0;
    answer = (page) => {
      if (page === 1) pass += 1;
      if (pass > 1 || page !== 2) return THREE(page);
      const [p1, p2] = [THREE(1).body, THREE(2).body] as { data: unknown[] }[];
      return { body: { ...p2, data: [p1!.data[1], p2!.data[0]] } };
    };
    expect((await list(req())).teams).toHaveLength(5);
    expect(requestedPages()).toEqual(['1', '2', '1', '2', '3']);
  });
});

describe('complete_access: GET teams/<id> for teams whose list entry lacks flags', () => {
  const older = fixture('teams/older-release.json') as { data: unknown[] };
  const full = fixture('teams/page-3-of-3.json') as { data: unknown[] };
  /** A listing of `sec` (an older release's entry, most flags missing) and `readers` (every flag). */
  async function listed() {
    answer = () => ({ body: { data: [older.data[1], full.data[0]] } });
    const { teams } = await list(req());
    requests.length = 0;
    return teams;
  }

  it('shows only the teams that lack flags and takes their flags from the show answer', async () => {
    const teams = await listed();
    answer = (_page, r) =>
      r.url === '/api/v2/teams/team-Sc9kPm1ZxH7bVr3A'
        ? { body: fixture('teams/show-team.json') }
        : { status: 404, body: fixture('teams/error-404-numeric-status.json') };
    const completed = await completeAccess(teams, show);
    expect(requests.map((r) => r.url)).toEqual(['/api/v2/teams/team-Sc9kPm1ZxH7bVr3A']);
    expect(requests[0]?.headers.authorization).toBe('Bearer tok-123');
    expect(completed.map((t) => [t.name, ORGANIZATION_ACCESS.filter((k) => carries(t, k)).length, holds(t, 'manage-projects')])).toEqual([
      ['sec', 14, true],
      ['readers', 14, false],
    ]);
  });

  it('fails as a whole when one show fails', async () => {
    const teams = await listed();
    answer = () => ({ status: 404, body: fixture('teams/error-404-numeric-status.json') });
    const err = await upstreamFailure(completeAccess(teams, show));
    expect(err.message).toBe('teams/show: HTTP 404: not found');
  });
});
