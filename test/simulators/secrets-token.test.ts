import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { parseBody } from '../../src/upstream/parse.js';
import { tokenLookupSelfResponse } from '../../src/collectors/secrets/token-lookup-self.js';

/** `GET /v1/auth/token/lookup-self`, and tokens with a TTL made through the admin API. */
let sim: SecretsSimulator;
beforeAll(async () => {
  sim = await startSecretsSimulator({ clusters: [{ name: 'c1' }] }, { walTickMs: 3_600_000 });
});
afterAll(() => sim.close());

const url = (path: string) => `${sim.cluster('c1').url}${path}`;
const lookup = (token?: string) => fetch(url('/v1/auth/token/lookup-self'), { headers: token ? { 'X-Secrets-Token': token } : {} });
const newToken = async (body: object): Promise<string> => {
  const res = await fetch(url('/_sim/tokens'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
};

describe('GET /v1/auth/token/lookup-self', () => {
  it('shows the root token without expiry: expire_time null, ttl 0', async () => {
    const res = await lookup(sim.cluster('c1').rootToken);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({ expire_time: null, ttl: 0, policies: ['root'], renewable: false });
    expect(parseBody(tokenLookupSelfResponse, { data }, 'x').data).toMatchObject({ expire_time: undefined, renewable: false });
    expect(typeof data.issue_time).toBe('string');
  });

  it('shows a token made with a TTL expiring then, renewable, in the shape vigil reads', async () => {
    const res = await lookup(await newToken({ ttl_seconds: 3600 }));
    const body = (await res.json()) as { data: { ttl: number } };
    const parsed = parseBody(tokenLookupSelfResponse, body, 'x').data;
    expect(Math.abs((parsed.expire_time as number) - (Date.now() / 1000 + 3600))).toBeLessThan(60);
    expect(parsed.renewable).toBe(true);
    expect(body.data.ttl).toBeGreaterThan(3500);
  });

  it('refuses an expired token with 403, there and on the endpoints that need a token', async () => {
    const expired = await newToken({ ttl_seconds: -1, sudo: true });
    const res = await lookup(expired);
    expect([res.status, await res.json()]).toEqual([403, { errors: ['permission denied'] }]);
    const enable = await fetch(url('/v1/sys/replication/performance/primary/enable'), { method: 'POST', headers: { 'X-Secrets-Token': expired } });
    expect(enable.status).toBe(403);
  });

  it('refuses a missing or unknown token with 403', async () => {
    expect((await lookup()).status).toBe(403);
    expect((await lookup('s.unknown')).status).toBe(403);
  });

  it('rejects a TTL that is not a number', async () => {
    expect(
      (await fetch(url('/_sim/tokens'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ttl_seconds: '1h' }) }))
        .status,
    ).toBe(400);
  });
});
