import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { aclTokenSelfResponse } from '../../src/collectors/agent/token.js';
import { parseBody } from '../../src/upstream/parse.js';
import { admin } from '../helpers/agent-sim.js';

/** `GET /v1/acl/token/self` and the read token's expiry, set through the admin API. */
let sim: AgentSimulator;
let open: AgentSimulator | undefined;
const start = async (acl: boolean) => {
  open = sim = await startAgentSimulator({ agents: [{ name: 's1', role: 'both' }], acl: { enabled: acl } });
};
beforeEach(() => start(true));
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const self = (token?: string, path = '/v1/acl/token/self') => fetch(`${sim.agent('s1').url}${path}`, { headers: token ? { 'X-Scheduler-Token': token } : {} });

describe('GET /v1/acl/token/self', () => {
  it('shows the token it was called with, without ExpirationTime while it does not expire', async () => {
    const res = await self(sim.readToken);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.SecretID).toBe(sim.readToken);
    expect(body.Type).toBe('client');
    expect(body).not.toHaveProperty('ExpirationTime');
    expect(parseBody(aclTokenSelfResponse, body, 'acl/token/self').ExpirationTime).toBeUndefined();
  });

  it('shows the expiry set through the admin API, in the shape vigil reads', async () => {
    const set = await admin(sim, 's1', 'acl/read-token', { expires_in_seconds: 3600 });
    expect(set.status).toBe(200);
    const body = (await (await self(sim.readToken)).json()) as Record<string, unknown>;
    const expiry = parseBody(aclTokenSelfResponse, body, 'acl/token/self').ExpirationTime as number;
    expect(Math.abs(expiry - (Date.now() / 1000 + 3600))).toBeLessThan(60);
  });

  it('refuses an expired token, here and on every endpoint, until the expiry is dropped', async () => {
    await admin(sim, 's1', 'acl/read-token', { expires_in_seconds: -1 });
    const res = await self(sim.readToken);
    expect([res.status, await res.text()]).toEqual([403, 'ACL token expired']);
    expect((await self(sim.readToken, '/v1/agent/self')).status).toBe(403);
    await admin(sim, 's1', 'acl/read-token', undefined, 'DELETE');
    expect((await self(sim.readToken)).status).toBe(200);
    expect((await self(sim.readToken, '/v1/agent/self')).status).toBe(200);
  });

  it('answers an expired token as servers from 1.10.1 do: 500 "rpc error: ACL token expired", here and on every endpoint', async () => {
    await admin(sim, 's1', 'acl/read-token', { expires_in_seconds: -1, expired_status: 500 });
    for (const path of ['/v1/acl/token/self', '/v1/agent/self', '/v1/agent/members']) {
      const res = await self(sim.readToken, path);
      expect([path, res.status, await res.text()]).toEqual([path, 500, 'rpc error: ACL token expired']);
    }
    // The health needs no token: the agent itself is well.
    expect((await self(sim.readToken, '/v1/agent/health')).status).toBe(200);
    expect((await admin(sim, 's1', 'acl/read-token', { expires_in_seconds: -1, expired_status: 502 })).status).toBe(400);
  });

  it('answers 403 "ACL token not found" for a token the cluster does not know', async () => {
    const res = await self('no-such-token');
    expect([res.status, await res.text()]).toEqual([403, 'ACL token not found']);
  });

  it('rejects an expiry that is not a number', async () => {
    expect((await admin(sim, 's1', 'acl/read-token', { expires_in_seconds: '1h' })).status).toBe(400);
  });
});

describe('a cluster without ACLs', () => {
  beforeEach(async () => {
    await open?.close();
    await start(false);
  });

  it('answers 400 "ACL support disabled", whatever the token', async () => {
    const res = await self(sim.readToken);
    expect([res.status, await res.text()]).toEqual([400, 'ACL support disabled']);
  });

  it('has no token to expire', async () => {
    expect((await admin(sim, 's1', 'acl/read-token', { expires_in_seconds: 10 })).status).toBe(409);
  });
});
