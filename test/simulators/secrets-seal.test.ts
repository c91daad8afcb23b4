import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEMO_NODES_CLUSTER,
  DEMO_SEAL_BACKENDS,
  demoWithNodesScenario,
  parseScenario,
  startSecretsSimulator,
  type SecretsProfile,
  type SecretsSimulator,
} from '../../simulators/secrets/index.js';

/**
 * Each node's sys/seal-status and sys/seal-backend-status, unauthenticated, sealed or not, in the
 * shapes real servers answer them (test/fixtures/real/secrets/seal-*.json), and the faults that
 * change them: an unseal stuck part way, one seal backend or every one unhealthy on one node.
 */
type Obj = Record<string, unknown>;
let sim: SecretsSimulator;

const SHAMIR = 'dr-primary';
const HA = DEMO_NODES_CLUSTER;
const nodeUrl = (node: string, cluster = SHAMIR) => sim.cluster(cluster).nodes.get(node)!;
async function get(url: string, method = 'GET'): Promise<{ status: number; body: Obj }> {
  const res = await fetch(url, { method });
  return { status: res.status, body: (await res.json()) as Obj };
}
const sealStatus = async (node: string, cluster = SHAMIR) => (await get(`${nodeUrl(node, cluster)}/v1/sys/seal-status`)).body;
const backends = async (node: string, cluster = HA) => (await get(`${nodeUrl(node, cluster)}/v1/sys/seal-backend-status`)).body;
async function admin(node: string, body: unknown, cluster = SHAMIR): Promise<{ status: number; body: Obj }> {
  const res = await fetch(`${sim.cluster(cluster).url}/_sim/nodes/${node}`, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Obj };
}
/** The keys of a real answer's body (test/fixtures/real/secrets/), sorted. */
const realKeys = (file: string) =>
  Object.keys((JSON.parse(readFileSync(new URL(`../fixtures/real/secrets/${file}`, import.meta.url), 'utf8')) as { body: Obj }).body).sort();
/** Seconds between an RFC 3339 time an answer carries and now. */
const age = (time: unknown) => (Date.now() - Date.parse(time as string)) / 1000;

beforeAll(async () => {
  sim = await startSecretsSimulator(demoWithNodesScenario(), { walTickMs: 3_600_000 });
});
afterAll(() => sim.close());
beforeEach(async () => {
  for (const cluster of [SHAMIR, HA]) {
    const clear = { sealed: false, removed: false, ...(cluster === HA ? { unhealthy_seal_backends: [] } : {}) };
    for (const id of ['node-1', 'node-2', 'node-3']) await admin(id, clear, cluster);
    await fetch(`${sim.cluster(cluster).url}/_sim/leader`, { method: 'POST', body: JSON.stringify({ node: 'node-1' }) });
  }
});

describe('sys/seal-status of each node', () => {
  it('answers without a token, about the node itself, as a 1.16+ server with raft storage and a Shamir seal does', async () => {
    const s = await sealStatus('node-2');
    expect(s).toEqual({
      type: 'shamir',
      initialized: true,
      sealed: false,
      t: 3,
      n: 5,
      progress: 0,
      nonce: '',
      version: '1.17.3+ent',
      build_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as unknown,
      migration: false,
      cluster_name: `vault-cluster-${SHAMIR}`,
      cluster_id: expect.any(String) as unknown,
      recovery_seal: false,
      storage_type: 'raft',
      removed_from_cluster: false,
    });
    // The cluster's address answers as its active node does.
    expect((await get(`${sim.cluster(SHAMIR).url}/v1/sys/seal-status`)).body).toEqual(await sealStatus('node-1'));
  });

  it('a sealed node answers 200, sealed, without its cluster name; a removed one says so', async () => {
    await admin('node-2', { sealed: true });
    const s = await sealStatus('node-2');
    expect(s).toMatchObject({ sealed: true, progress: 0, nonce: '' });
    expect(Object.keys(s).sort()).toEqual(realKeys('seal-status-sealed-1.19-docs.json'));
    await admin('node-3', { removed: true });
    expect(await sealStatus('node-3')).toMatchObject({ removed_from_cluster: true });
  });

  it('a Seal HA cluster reports its seal as multiseal and its recovery keys as Shamir shares', async () => {
    expect(await sealStatus('node-1', HA)).toMatchObject({ type: 'multiseal', recovery_seal: true, recovery_seal_type: 'shamir', t: 3, n: 5 });
  });

  it('takes GET only, as the servers do', async () => {
    expect(await get(`${nodeUrl('node-1')}/v1/sys/seal-status`, 'POST')).toEqual({ status: 405, body: { errors: [] } });
    expect((await get(`${nodeUrl('node-1', HA)}/v1/sys/seal-backend-status`, 'PUT')).status).toBe(405);
  });
});

describe('sys/seal-backend-status of each node', () => {
  it('a Shamir seal answers as one healthy backend named shamir, sealed or not', async () => {
    await admin('node-2', { sealed: true });
    expect(await backends('node-2', SHAMIR)).toEqual({ healthy: true, backends: [{ name: 'shamir', healthy: true }] });
  });

  it('Seal HA: every backend healthy, no unhealthy_since', async () => {
    expect(await backends('node-1')).toEqual({ healthy: true, fully_wrapped: true, backends: DEMO_SEAL_BACKENDS.map((name) => ({ name, healthy: true })) });
  });
});

describe('fault: an unseal stuck part way on one node', () => {
  it('the node is sealed at k of t shares, with one nonce, and stays there until cleared, which unseals it', async () => {
    await admin('node-2', { unseal_progress: 1 });
    const stuck = await sealStatus('node-2');
    expect(stuck).toMatchObject({ sealed: true, progress: 1, t: 3 });
    expect(stuck.nonce).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get(`${nodeUrl('node-2')}/v1/sys/health`)).status).toBe(503);
    await new Promise((r) => setTimeout(r, 50));
    expect(await sealStatus('node-2')).toEqual(stuck);
    // Another share: the same attempt, the same nonce.
    await admin('node-2', { unseal_progress: 2 });
    expect(await sealStatus('node-2')).toMatchObject({ progress: 2, nonce: stuck.nonce });
    await admin('node-2', { unseal_progress: 0 });
    expect(await sealStatus('node-2')).toMatchObject({ sealed: false, progress: 0, nonce: '' });
    expect((await get(`${nodeUrl('node-2')}/v1/sys/health`)).status).toBe(429);
  });

  it('on the active node it hands over; unsealing the node clears the progress too', async () => {
    await admin('node-1', { unseal_progress: 2 });
    expect((await get(`${sim.cluster(SHAMIR).url}/v1/sys/seal-status`)).body).toMatchObject({ sealed: false });
    await admin('node-1', { sealed: false });
    expect(await sealStatus('node-1')).toMatchObject({ sealed: false, progress: 0 });
  });

  it('refuses a progress the threshold does not allow', async () => {
    expect((await admin('node-2', { unseal_progress: 3 })).body.errors).toEqual([
      '"unseal_progress" must be from 0 to 2: at the threshold of 3 shares the node unseals',
    ]);
    expect((await admin('node-2', { unseal_progress: -1 })).status).toBe(400);
  });
});

describe('faults: seal backends unhealthy on one node', () => {
  it('one backend: it and the whole seal are unhealthy since it was last seen healthy; the other nodes see nothing', async () => {
    await admin('node-3', { unhealthy_seal_backends: ['transit'] }, HA);
    const b = await backends('node-3');
    expect(b).toMatchObject({
      healthy: false,
      backends: [
        { name: 'hsm', healthy: true },
        { name: 'transit', healthy: false },
      ],
    });
    expect(age(b.unhealthy_since)).toBeLessThan(5);
    expect((b.backends as Obj[])[1]!.unhealthy_since).toBe(b.unhealthy_since);
    expect((b.backends as Obj[])[0]).not.toHaveProperty('unhealthy_since');
    expect((await backends('node-1')).healthy).toBe(true);
    await admin('node-3', { unhealthy_seal_backends: [] }, HA);
    expect(await backends('node-3')).toEqual(await backends('node-1'));
  });

  it('every backend: all unhealthy, the seal since the first of them failed', async () => {
    await admin('node-2', { unhealthy_seal_backends: ['transit'] }, HA);
    const first = (await backends('node-2')).unhealthy_since;
    await admin('node-2', { unhealthy_seal_backends: DEMO_SEAL_BACKENDS }, HA);
    const b = await backends('node-2');
    expect(b.healthy).toBe(false);
    expect((b.backends as Obj[]).map((x) => x.healthy)).toEqual([false, false]);
    expect(b.unhealthy_since).toBe(first);
    for (const x of b.backends as Obj[]) expect(Date.parse(x.unhealthy_since as string)).toBeGreaterThanOrEqual(Date.parse(first as string));
    // The node still serves: Seal HA's health check is advisory.
    expect((await get(`${nodeUrl('node-2', HA)}/v1/sys/health`)).status).toBe(429);
    await admin('node-2', { unhealthy_seal_backends: [] }, HA);
    expect((await backends('node-2')).healthy).toBe(true);
  });

  it('refuses a backend the cluster does not have', async () => {
    expect((await admin('node-2', { unhealthy_seal_backends: ['awskms'] }, HA)).body.errors).toEqual(['no seal backend "awskms" (have: hsm, transit)']);
    expect((await admin('node-2', { unhealthy_seal_backends: ['shamir'] })).status).toBe(400);
  });
});

describe('older profiles', () => {
  it.each<SecretsProfile>(['1.5', 'pre-1.5'])('%s: seal-status as a 1.7 server answers it, no seal-backend-status (404)', async (profile) => {
    const old = await startSecretsSimulator({ clusters: [{ name: 'old', nodes: 1 }] }, { walTickMs: 3_600_000, profile });
    try {
      const url = old.cluster('old').nodes.get('node-1')!;
      await fetch(`${old.cluster('old').url}/_sim/nodes/node-1`, { method: 'POST', body: JSON.stringify({ unseal_progress: 1 }) });
      const s = (await get(`${url}/v1/sys/seal-status`)).body;
      expect(Object.keys(s).sort()).toEqual(realKeys('seal-status-mid-unseal-1.7.1-vaultsharp-193.json'));
      expect(await get(`${url}/v1/sys/seal-backend-status`)).toEqual({ status: 404, body: { errors: ['unsupported path'] } });
    } finally {
      await old.close();
    }
  });
});

describe('the scenario', () => {
  it('takes two or three seal backends with names of their own', () => {
    const one = (sealBackends: string[]) => () => parseScenario({ clusters: [{ name: 'c', sealBackends }] });
    expect(one(['hsm', 'transit', 'awskms'])).not.toThrow();
    expect(one(['hsm'])).toThrow(/invalid secrets scenario/);
    expect(one(['hsm', 'hsm'])).toThrow(/must differ/);
  });
});
