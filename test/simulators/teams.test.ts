import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoTeamsScenario, startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';

interface TeamJson {
  id: string;
  type: string;
  attributes: Record<string, unknown> & {
    name: string;
    visibility: string;
    'users-count': number;
    'organization-access': Record<string, boolean>;
    permissions: Record<string, boolean>;
  };
  relationships: Record<string, unknown> & { users: { data: { id: string; type: string }[] } };
  links: { self: string };
}

interface ErrorJson {
  status?: number | string;
  title?: string;
  source?: { pointer: string };
}

/** A JSON:API document as the tests read it; `data` is one team (show) or many (list). */
interface Doc {
  data: TeamJson & TeamJson[];
  included: { id: string; type: string }[];
  links: Record<'self' | 'first' | 'prev' | 'next' | 'last', string | null>;
  meta: { pagination: Record<string, number | null> };
  errors: ErrorJson[];
}

interface Answer<T> {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body, cast unchecked to what the test expects (empty object when not JSON). */
  json: T;
}

async function call<T = Doc>(
  sim: TeamsSimulator,
  path: string,
  opts: { token?: string; method?: string; body?: unknown; rawBody?: string; signal?: AbortSignal } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/vnd.api+json' };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(sim.url + path, {
    method: opts.method ?? 'GET',
    headers,
    ...(opts.rawBody !== undefined ? { body: opts.rawBody } : opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const text = await res.text();
  let json: unknown = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    // Garbage faults answer non-JSON on purpose; tests look at `text` then.
  }
  return { status: res.status, headers: res.headers, text, json: json as T };
}

interface AdminJson {
  owner_token: string;
  token: string;
  per_second: number;
  rate_limited_total: number;
  requests: Record<string, number>;
  organizations: Record<string, { teams: number; users: number }>;
}

const admin = (sim: TeamsSimulator, path: string, method: string, body?: unknown): Promise<Answer<AdminJson>> =>
  call<AdminJson>(sim, `/_sim${path}`, { method, ...(body !== undefined ? { body } : {}) });

const teamBody = (attributes: Record<string, unknown>) => ({ data: { type: 'teams', attributes } });

describe('teams simulator', () => {
  let sim: TeamsSimulator;
  let owner: string;
  const list = (query: string, token = owner) => call(sim, `/api/v2/organizations/big/teams${query}`, { token });

  beforeAll(async () => {
    sim = await startTeamsSimulator({
      organizations: [
        { name: 'big', teams: 250, seed: 7 },
        { name: 'other', teams: 3 },
      ],
      // Most tests fire many requests; the rate limit has its own simulator below.
      rateLimit: { perSecond: 100_000 },
    });
    owner = sim.ownerToken('big');
  });
  afterAll(() => sim.close());

  describe('GET /organizations/:org/teams pagination', () => {
    it('pages 250 teams by 100 into 3 pages with meta and links', async () => {
      const names: string[] = [];
      let next: string | null = `${sim.url}/api/v2/organizations/big/teams?page%5Bsize%5D=100`;
      const metas = [];
      while (next) {
        const res: Answer<Doc> = await call(sim, next.slice(sim.url.length), { token: owner });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/vnd.api+json');
        names.push(...res.json.data.map((t) => t.attributes.name));
        metas.push(res.json.meta.pagination);
        next = res.json.links.next;
      }
      expect(metas).toEqual([
        { 'current-page': 1, 'next-page': 2, 'prev-page': null, 'total-pages': 3, 'total-count': 250 },
        { 'current-page': 2, 'next-page': 3, 'prev-page': 1, 'total-pages': 3, 'total-count': 250 },
        { 'current-page': 3, 'next-page': null, 'prev-page': 2, 'total-pages': 3, 'total-count': 250 },
      ]);
      expect(names).toHaveLength(250);
      expect(new Set(names).size).toBe(250);
      expect(names[0]).toBe('team-0001');
    });

    it('defaults to 20 per page and accepts raw brackets', async () => {
      const res = await list('?page[number]=2');
      expect(res.json.data).toHaveLength(20);
      expect(res.json.data[0]!.attributes.name).toBe('team-0021');
      expect(res.json.meta.pagination['total-pages']).toBe(13);
      expect(res.json.links.next).toContain('page%5Bnumber%5D=3');
      expect(res.json.links.last).toContain('page%5Bnumber%5D=13');
    });

    it('clamps page[size] to the maximum of 100', async () => {
      const res = await list('?page%5Bsize%5D=1000');
      expect(res.json.data).toHaveLength(100);
      expect(res.json.meta.pagination['total-pages']).toBe(3);
      expect(res.json.links.self).toContain('page%5Bsize%5D=100');
    });

    it('answers an empty page past the end', async () => {
      const res = await list('?page%5Bnumber%5D=9&page%5Bsize%5D=100');
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual([]);
      expect(res.json.meta.pagination['next-page']).toBeNull();
    });
  });

  describe('GET /organizations/:org/teams search', () => {
    it('q searches names case-insensitively', async () => {
      const res = await list('?q=TEAM-00');
      expect(res.json.meta.pagination['total-count']).toBe(99);
    });

    it('filter[names] returns teams matching any of the names', async () => {
      const res = await list('?filter%5Bnames%5D=team-0003,team-0100,nope');
      expect(res.json.data.map((t) => t.attributes.name)).toEqual(['team-0003', 'team-0100']);
    });
  });

  describe('GET /organizations/:org/teams include', () => {
    it('includes every member once with include=users', async () => {
      const res = await list('?include=users&page%5Bsize%5D=5');
      const memberIds = new Set(res.json.data.flatMap((t) => t.relationships.users.data.map((u) => u.id)));
      expect(res.json.included.every((r) => r.type === 'users')).toBe(true);
      expect(new Set(res.json.included.map((r) => r.id))).toEqual(memberIds);
    });

    it('includes organization memberships', async () => {
      const res = await list('?include=organization-memberships&page%5Bsize%5D=5');
      expect(res.json.included.length).toBeGreaterThan(0);
      expect(res.json.included[0]!.type).toBe('organization-memberships');
    });

    it('rejects any other include with 400 and a numeric status', async () => {
      const res = await list('?include=workspaces');
      expect(res.status).toBe(400);
      expect(res.json.errors[0]!.status).toBe(400);
    });
  });

  describe('team resource shape', () => {
    it('lists teams with a subset of organization-access flags and no empty sso-team-id', async () => {
      const res = await list('?page%5Bsize%5D=100');
      const team = res.json.data[0]!;
      expect(team.id).toMatch(/^team-[A-Za-z0-9]{16}$/);
      expect(team.type).toBe('teams');
      expect(team.links.self).toBe(`/api/v2/teams/${team.id}`);
      expect(team.relationships['authentication-token']).toEqual({ meta: {} });
      expect(team.attributes['users-count']).toBe(team.relationships.users.data.length);
      expect(team.attributes['created-at']).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(Object.keys(team.attributes['organization-access'])).toHaveLength(11);
      expect(team.attributes['organization-access']).not.toHaveProperty('manage-projects');
      const attrs = res.json.data.map((t) => t.attributes);
      expect(attrs.some((a) => !('sso-team-id' in a))).toBe(true);
      expect(attrs.some((a) => typeof a['sso-team-id'] === 'string')).toBe(true);
      expect(new Set(attrs.map((a) => a.visibility))).toEqual(new Set(['secret', 'organization']));
      expect(new Set(attrs.map((a) => a['users-count'])).size).toBeGreaterThan(10);
    });

    it('shows all 14 flags, and keeps the legacy teams that break a consistency rule', async () => {
      const listed = await list('?filter%5Bnames%5D=team-0008,team-0038');
      const [rule1, rule2] = await Promise.all(listed.json.data.map((t) => call(sim, `/api/v2/teams/${t.id}`, { token: owner })));
      const access1 = rule1!.json.data.attributes['organization-access'];
      expect(Object.keys(access1)).toHaveLength(14);
      expect(rule1!.json.data.attributes).toHaveProperty('sso-team-id');
      expect([access1['manage-projects'], access1['manage-workspaces']]).toEqual([true, false]);
      const access2 = rule2!.json.data.attributes['organization-access'];
      expect([access2['read-projects'], access2['read-workspaces']]).toEqual([true, false]);
    });

    it('is deterministic for a seed', async () => {
      const again = await startTeamsSimulator({ organizations: [{ name: 'big', teams: 250, seed: 7 }] });
      try {
        expect(again.ownerToken('big')).toBe(owner);
        const a = await list('?page%5Bsize%5D=3');
        const b = await call(again, '/api/v2/organizations/big/teams?page%5Bsize%5D=3', { token: owner });
        expect(b.json.data).toEqual(a.json.data);
      } finally {
        await again.close();
      }
    });
  });

  describe('visibility', () => {
    async function allTeams(token: string): Promise<TeamJson[]> {
      const teams: TeamJson[] = [];
      for (let page = 1; ; page++) {
        const res = await list(`?page%5Bsize%5D=100&page%5Bnumber%5D=${page}`, token);
        teams.push(...res.json.data);
        if (res.json.meta.pagination['next-page'] === null) return teams;
      }
    }

    it('owner sees every team, a member sees organization teams and its own secret team only', async () => {
      const all = await allTeams(owner);
      expect(all.length).toBeGreaterThanOrEqual(250);
      const secrets = all.filter((t) => t.attributes.visibility === 'secret');
      const mine = secrets[0]!;
      const member = sim.memberToken('big', mine.attributes.name);
      const seen = await allTeams(member);
      const expected = all.filter((t) => t.attributes.visibility === 'organization' || t.id === mine.id);
      expect(seen.map((t) => t.id).sort()).toEqual(expected.map((t) => t.id).sort());
      expect(seen[0]!.attributes.permissions['can-destroy']).toBe(false);
      expect(all[0]!.attributes.permissions['can-destroy']).toBe(true);

      expect((await call(sim, `/api/v2/teams/${secrets[1]!.id}`, { token: member })).status).toBe(404);
      expect((await call(sim, `/api/v2/teams/${mine.id}`, { token: member })).status).toBe(200);
    });
  });

  describe('authentication errors', () => {
    it('answers 401 with the plain error form without or with an unknown token', async () => {
      for (const token of [undefined, 'nope.atlasv1.nope']) {
        const res = await call(sim, '/api/v2/organizations/big/teams', token === undefined ? {} : { token });
        expect(res.status).toBe(401);
        expect(res.json).toEqual({ errors: ['unauthorized'] });
      }
    });

    it('answers 404 with a numeric status for another organization, an unknown one, or an unknown team', async () => {
      for (const path of ['/api/v2/organizations/other/teams', '/api/v2/organizations/ghost/teams', '/api/v2/teams/team-nope']) {
        const res = await call(sim, path, { token: owner });
        expect(res.status).toBe(404);
        expect(res.json.errors[0]).toEqual({ status: 404, title: 'not found' });
      }
    });
  });

  describe('POST /organizations/:org/teams', () => {
    const create = (body: unknown, token = owner) => call(sim, '/api/v2/organizations/big/teams', { method: 'POST', token, body });

    it('creates a secret team by default and lists it', async () => {
      const res = await create(teamBody({ name: 'new_team-1', 'organization-access': { 'manage-workspaces': true } }));
      expect(res.status).toBe(200);
      expect(res.json.data.attributes.visibility).toBe('secret');
      expect(res.json.data.attributes['organization-access']['manage-workspaces']).toBe(true);
      expect(res.json.data.attributes['users-count']).toBe(0);
      const found = await list('?filter%5Bnames%5D=new_team-1');
      expect(found.json.data[0]!.id).toBe(res.json.data.id);
    });

    it.each([
      ['a name with other characters', teamBody({ name: 'bad name!' }), '/data/attributes/name'],
      ['a missing name', teamBody({}), '/data/attributes/name'],
      ['a taken name', teamBody({ name: 'TEAM-0001' }), '/data/attributes/name'],
      ['an unknown visibility', teamBody({ name: 'v1', visibility: 'public' }), '/data/attributes/visibility'],
      [
        'an unknown access flag',
        teamBody({ name: 'v2', 'organization-access': { 'manage-everything': true } }),
        '/data/attributes/organization-access/manage-everything',
      ],
      [
        'a non-boolean access flag',
        teamBody({ name: 'v3', 'organization-access': { 'manage-teams': 'yes' } }),
        '/data/attributes/organization-access/manage-teams',
      ],
      [
        'manage-projects without manage-workspaces',
        teamBody({ name: 'r1', 'organization-access': { 'manage-projects': true } }),
        '/data/attributes/organization-access/manage-workspaces',
      ],
      [
        'read-projects without read-workspaces',
        teamBody({ name: 'r2', 'organization-access': { 'read-projects': true, 'read-workspaces': false } }),
        '/data/attributes/organization-access/read-workspaces',
      ],
      ['a wrong data.type', { data: { type: 'workspaces', attributes: { name: 'w' } } }, '/data/type'],
      ['no data', { name: 'x' }, '/data'],
    ])('rejects %s with 422 and a string status', async (_what, body, pointer) => {
      const res = await create(body);
      expect(res.status).toBe(422);
      expect(res.json.errors[0]!.status).toBe('422');
      expect(res.json.errors.map((e) => e.source?.pointer)).toContain(pointer);
    });

    it('rejects a body that is not JSON with 422', async () => {
      const res = await call(sim, '/api/v2/organizations/big/teams', { method: 'POST', token: owner, rawBody: '{"data": ' });
      expect(res.status).toBe(422);
    });

    it('accepts consistent project permissions', async () => {
      const res = await create(
        teamBody({
          name: 'projects',
          'organization-access': { 'manage-projects': true, 'manage-workspaces': true, 'read-projects': true, 'read-workspaces': true },
        }),
      );
      expect(res.status).toBe(200);
    });

    it('answers 404 to a member token and to another organization', async () => {
      const member = sim.memberToken('big', 'team-0002');
      expect((await create(teamBody({ name: 'by-member' }), member)).status).toBe(404);
      expect((await create(teamBody({ name: 'by-other' }), sim.ownerToken('other'))).status).toBe(404);
    });
  });

  describe('GET, PATCH and DELETE /teams/:id', () => {
    async function freshTeam(name: string): Promise<string> {
      const res = await call(sim, '/api/v2/organizations/big/teams', { method: 'POST', token: owner, body: teamBody({ name, visibility: 'organization' }) });
      return res.json.data.id;
    }

    it('shows a team with include=users and rejects a bad include', async () => {
      const id = (await list('?filter%5Bnames%5D=team-0001')).json.data[0]!.id;
      const res = await call(sim, `/api/v2/teams/${id}?include=users`, { token: owner });
      expect(res.json.data.id).toBe(id);
      expect(res.json.included).toHaveLength(res.json.data.attributes['users-count']);
      expect((await call(sim, `/api/v2/teams/${id}?include=owners`, { token: owner })).status).toBe(400);
    });

    it('updates name, visibility, access and token management under either name', async () => {
      const id = await freshTeam('to-update');
      const res = await call(sim, `/api/v2/teams/${id}`, {
        method: 'PATCH',
        token: owner,
        body: teamBody({ name: 'updated', visibility: 'secret', 'allow-team-token-management': false, 'organization-access': { 'manage-teams': true } }),
      });
      expect(res.status).toBe(200);
      expect(res.json.data.attributes).toMatchObject({ name: 'updated', visibility: 'secret', 'allow-member-token-management': false });
      expect(res.json.data.attributes['organization-access']['manage-teams']).toBe(true);
      const again = await call(sim, `/api/v2/teams/${id}`, { method: 'PATCH', token: owner, body: teamBody({ 'allow-member-token-management': true }) });
      expect(again.json.data.attributes['allow-member-token-management']).toBe(true);
      expect(again.json.data.attributes.name).toBe('updated');
    });

    it('validates updates like creates', async () => {
      const id = await freshTeam('to-validate');
      const rename = await call(sim, `/api/v2/teams/${id}`, { method: 'PATCH', token: owner, body: teamBody({ name: 'team-0001' }) });
      expect(rename.status).toBe(422);
      const rule = await call(sim, `/api/v2/teams/${id}`, {
        method: 'PATCH',
        token: owner,
        body: teamBody({ 'organization-access': { 'manage-projects': true } }),
      });
      expect(rule.status).toBe(422);
      const same = await call(sim, `/api/v2/teams/${id}`, { method: 'PATCH', token: owner, body: teamBody({ name: 'to-validate' }) });
      expect(same.status).toBe(200);
    });

    it('answers 404 to a member updating or deleting a team it can see', async () => {
      const id = await freshTeam('visible-to-members');
      const member = sim.memberToken('big', 'team-0003');
      expect((await call(sim, `/api/v2/teams/${id}`, { token: member })).status).toBe(200);
      expect((await call(sim, `/api/v2/teams/${id}`, { method: 'PATCH', token: member, body: teamBody({ name: 'x' }) })).status).toBe(404);
      expect((await call(sim, `/api/v2/teams/${id}`, { method: 'DELETE', token: member })).status).toBe(404);
    });

    it('deletes with 204, after which the team is gone', async () => {
      const id = await freshTeam('to-delete');
      const res = await call(sim, `/api/v2/teams/${id}`, { method: 'DELETE', token: owner });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await call(sim, `/api/v2/teams/${id}`, { token: owner })).status).toBe(404);
      expect((await list('?filter%5Bnames%5D=to-delete')).json.data).toEqual([]);
    });
  });

  describe('page faults', () => {
    it('fails page 2 only until cleared', async () => {
      expect((await admin(sim, '/faults/page', 'POST', { page: 2, status: 500 })).status).toBe(200);
      try {
        expect((await list('?page%5Bnumber%5D=1')).status).toBe(200);
        const failed = await list('?page%5Bnumber%5D=2');
        expect(failed.status).toBe(500);
        expect(failed.json.errors[0]!.status).toBe('500');
      } finally {
        await admin(sim, '/faults/page', 'DELETE');
      }
      expect((await list('?page%5Bnumber%5D=2')).status).toBe(200);
    });

    it('slows one page', async () => {
      await admin(sim, '/faults/page', 'POST', { page: 3, delay_ms: 300 });
      try {
        const started = performance.now();
        expect((await list('?page%5Bnumber%5D=3')).status).toBe(200);
        expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      } finally {
        await admin(sim, '/faults/page', 'DELETE');
      }
    });
  });

  describe('common faults', () => {
    it('hangs API requests while the admin API still answers', async () => {
      await admin(sim, '/faults', 'POST', { hang: true });
      try {
        await expect(call(sim, '/api/v2/organizations/big/teams', { token: owner, signal: AbortSignal.timeout(300) })).rejects.toThrow();
        expect((await admin(sim, '/state', 'GET')).status).toBe(200);
      } finally {
        await admin(sim, '/faults', 'DELETE');
      }
    });

    it('answers garbage', async () => {
      await admin(sim, '/faults', 'POST', { garbage: true });
      try {
        const res = await list('');
        expect(res.status).toBe(200);
        expect(() => JSON.parse(res.text)).toThrow();
      } finally {
        await admin(sim, '/faults', 'DELETE');
      }
      expect((await list('')).status).toBe(200);
    });
  });

  describe('admin API', () => {
    // How fast it lists is measured by bench/timings.ts, not asserted here.
    it('adds an organization of 5,000 teams that lists completely, page by page', async () => {
      const added = await admin(sim, '/organizations', 'POST', { name: 'huge', teams: 5000 });
      expect(added.status).toBe(201);
      const token = added.json.owner_token;
      const names = new Set<string>();
      let count = 0;
      for (let page = 1; page <= 50; page++) {
        const res = await call(sim, `/api/v2/organizations/huge/teams?page%5Bsize%5D=100&page%5Bnumber%5D=${page}`, { token });
        count += res.json.data.length;
        for (const t of res.json.data as Array<{ id: string }>) names.add(t.id);
      }
      expect(count).toBe(5000);
      expect(names.size).toBe(5000);
      expect((await admin(sim, '/organizations', 'POST', { name: 'huge', teams: 1 })).status).toBe(409);
    });

    it('reports requests, organizations and team counts', async () => {
      const state = (await admin(sim, '/state', 'GET')).json;
      expect(state.requests['/api/v2/organizations/big/teams']).toBeGreaterThan(10);
      expect(state.organizations.other).toMatchObject({ teams: 3 });
      expect(state.rate_limited_total).toBe(0);
    });

    it('hands out member tokens to out-of-process callers', async () => {
      const res = await admin(sim, '/member-token', 'POST', { organization: 'big', team: 'team-0005' });
      expect(res.json.token).toBe(sim.memberToken('big', 'team-0005'));
      expect((await admin(sim, '/member-token', 'POST', { organization: 'big', team: 'ghost' })).status).toBe(404);
    });
  });
});

describe('rate limit', () => {
  let sim: TeamsSimulator;
  let token: string;
  const list = () => call(sim, '/api/v2/organizations/small/teams', { token });

  beforeAll(async () => {
    sim = await startTeamsSimulator({ organizations: [{ name: 'small', teams: 5 }], rateLimit: { perSecond: 5 } });
    token = sim.ownerToken('small');
  });
  afterAll(() => sim.close());
  // The limiter's windows run on performance.now(): a faked one (one clock for the whole block) lets
  // a test step past a window's end at once, while the sockets keep their real timers.
  beforeAll(() => void vi.useFakeTimers({ toFake: ['performance'] }));
  afterAll(() => void vi.useRealTimers());

  it('answers 429 with headers beyond perSecond, then succeeds after the reset', async () => {
    const ok = [];
    for (let i = 0; i < 5; i++) ok.push(await list());
    expect(ok.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(ok.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0']);
    expect(ok[0]!.headers.get('x-ratelimit-limit')).toBe('5');

    const refused = await list();
    expect(refused.status).toBe(429);
    expect(refused.json.errors[0]!.status).toBe('429');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(1);
    expect(refused.headers.get('retry-after')).toBe(String(Math.ceil(reset)));

    vi.advanceTimersByTime(reset * 1000 - 1);
    expect((await list()).status).toBe(429);
    vi.advanceTimersByTime(1);
    expect((await list()).status).toBe(200);
    expect((await admin(sim, '/state', 'GET')).json.rate_limited_total).toBe(2);
  });

  it('exhausts one token on request, leaving others alone', async () => {
    const other = sim.memberToken('small', 'team-0001');
    expect((await admin(sim, '/rate-limit/exhaust', 'POST', { token })).status).toBe(204);
    expect((await list()).status).toBe(429);
    expect((await call(sim, '/api/v2/organizations/small/teams', { token: other })).status).toBe(200);
  });

  it('changes the limit at run time', async () => {
    expect((await admin(sim, '/rate-limit', 'POST', { per_second: 50 })).json).toEqual({ per_second: 50 });
    vi.advanceTimersByTime(1000); // past the window the test before exhausted
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('50');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('49');
  });
});

describe('startTeamsSimulator', () => {
  it('rejects a scenario with duplicate organizations', async () => {
    await expect(
      startTeamsSimulator({
        organizations: [
          { name: 'a', teams: 1 },
          { name: 'a', teams: 2 },
        ],
      }),
    ).rejects.toThrow(/unique/);
  });

  it('demo scenario has one organization acme with 300 generated teams and its owners team', async () => {
    const sim = await startTeamsSimulator(demoTeamsScenario());
    try {
      const res = await call(sim, '/api/v2/organizations/acme/teams', { token: sim.ownerToken('acme') });
      expect(res.json.meta.pagination['total-count']).toBe(301);
    } finally {
      await sim.close();
    }
  });
});

describe('main.ts', () => {
  it('prints the URL and owner token, serves, and exits on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'simulators/teams/main.ts', '--port=0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      for await (const chunk of child.stdout as AsyncIterable<string>) {
        out += chunk;
        if (out.includes('owner token')) break;
      }
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const token = /organization acme: 300 teams, owner token (\S+)/.exec(out)?.[1];
      expect(url).toBeDefined();
      const res = await fetch(`${url}/api/v2/organizations/acme/teams`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
