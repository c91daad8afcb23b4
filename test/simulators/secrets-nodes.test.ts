import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';

/**
 * The nodes of a simulated secrets cluster: each answers sys/health at its own address with the
 * documented status codes and one body, the cluster answers sys/ha-status, sys/leader and the
 * autopilot state as the API documents them, and the node faults change what they should.
 */
type Obj = Record<string, unknown>;
let sim: SecretsSimulator;

const base = (cluster = 'dr-primary') => sim.cluster(cluster).url;
const token = (cluster = 'dr-primary') => sim.cluster(cluster).rootToken;
async function get(url: string, auth?: string): Promise<{ status: number; body: Obj }> {
  const res = await fetch(url, { headers: auth ? { 'x-secrets-token': auth } : {} });
  return { status: res.status, body: (await res.json()) as Obj };
}
const nodeUrl = (node: string, cluster = 'dr-primary') => sim.cluster(cluster).nodes.get(node)!;
const health = (node: string, query = '', cluster = 'dr-primary') => get(`${nodeUrl(node, cluster)}/v1/sys/health${query}`);
async function admin(path: string, body: unknown, cluster = 'dr-primary'): Promise<{ status: number; body: Obj }> {
  const res = await fetch(`${base(cluster)}/_sim/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Obj };
}
const autopilot = async () => (await get(`${base()}/v1/sys/storage/raft/autopilot/state`, token())).body.data as Obj;

beforeAll(async () => {
  sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
});
afterAll(() => sim.close());
beforeEach(async () => {
  for (const id of ['node-1', 'node-2', 'node-3']) await admin(`nodes/${id}`, { sealed: false, dead: false, removed: false, lag_entries: 0 });
  await admin('leader', { node: 'node-1' });
});

describe('sys/health of each node', () => {
  it('answers the documented status code of its role, with the same body', async () => {
    const [active, standby, perf] = await Promise.all(['node-1', 'node-2', 'node-3'].map((n) => health(n)));
    expect([active!.status, standby!.status, perf!.status]).toEqual([200, 429, 473]);
    expect(active!.body).toMatchObject({ initialized: true, sealed: false, standby: false, performance_standby: false, version: '1.17.3+ent' });
    expect(perf!.body).toMatchObject({ standby: true, performance_standby: true, license: { state: 'autoloaded', terminated: false } });
    // The cluster's own address reaches the active node.
    expect((await get(`${base()}/v1/sys/health`)).status).toBe(200);
  });

  it('takes the query parameters that change the codes', async () => {
    expect((await health('node-2', '?standbyok=true')).status).toBe(200);
    expect((await health('node-3', '?perfstandbyok=true')).status).toBe(200);
    expect((await health('node-2', '?standbycode=299')).status).toBe(299);
  });

  it('a DR secondary answers 472 on every node', async () => {
    expect((await health('node-1', '', 'dr-secondary')).status).toBe(472);
    expect((await health('node-2', '', 'dr-secondary')).status).toBe(472);
  });

  it('a sealed node: 503 with its body, no cluster name', async () => {
    await admin('nodes/node-2', { sealed: true });
    const h = await health('node-2');
    expect(h.status).toBe(503);
    expect(h.body).toMatchObject({ sealed: true, initialized: true });
    expect(h.body).not.toHaveProperty('cluster_name');
  });

  it('a removed node: 530, removed_from_cluster', async () => {
    await admin('nodes/node-3', { removed: true });
    const h = await health('node-3');
    expect(h.status).toBe(530);
    expect(h.body.removed_from_cluster).toBe(true);
  });

  it('a killed node: nothing answers at its address', async () => {
    await admin('nodes/node-3', { dead: true });
    await expect(health('node-3')).rejects.toThrow();
  });

  it('two voters of three dead: no active node, the survivor answers 474, the HA status and autopilot 500', async () => {
    await admin('nodes/node-1', { dead: true });
    await admin('nodes/node-2', { dead: true });
    expect((await health('node-3')).status).toBe(474);
    expect((await get(`${base()}/v1/sys/ha-status`, token())).status).toBe(500);
    expect((await get(`${base()}/v1/sys/leader`)).body).toMatchObject({ ha_enabled: true, leader_address: '' });
  });
});

describe('the HA status, the leader and autopilot', () => {
  it('sys/ha-status needs a token, and lists every node at its own API address', async () => {
    expect((await get(`${base()}/v1/sys/ha-status`)).status).toBe(403);
    const nodes = (await get(`${base()}/v1/sys/ha-status`, token())).body.Nodes as Obj[];
    expect(nodes.map((n) => [n.api_address, n.active_node])).toEqual([
      [nodeUrl('node-1'), true],
      [nodeUrl('node-2'), false],
      [nodeUrl('node-3'), false],
    ]);
    // Each node's raft address: its API host, the port after its API port.
    const api = new URL(nodeUrl('node-2'));
    expect(nodes[1]!.cluster_address).toBe(`https://127.0.0.1:${Number(api.port) + 1}`);
  });

  it('a DR secondary disables the HA status and autopilot', async () => {
    const r = await get(`${base('dr-secondary')}/v1/sys/ha-status`, token('dr-secondary'));
    expect(r).toEqual({ status: 400, body: { errors: ['path disabled in replication DR secondary mode'] } });
  });

  it('sys/leader names the active node, and follows the leader when it moves', async () => {
    expect((await get(`${base()}/v1/sys/leader`)).body.leader_address).toBe(`${nodeUrl('node-1')}/`);
    await admin('leader', { node: 'node-3' });
    expect((await get(`${base()}/v1/sys/leader`)).body.leader_address).toBe(`${nodeUrl('node-3')}/`);
    expect((await admin('leader', { node: 'node-9' })).status).toBe(400);
  });

  it('autopilot: three healthy voters tolerate one loss; a dead or lagging voter takes it', async () => {
    expect(await autopilot()).toMatchObject({ healthy: true, failure_tolerance: 1, voters: ['node-1', 'node-2', 'node-3'] });
    await admin('nodes/node-2', { dead: true });
    const dead = await autopilot();
    expect(dead).toMatchObject({ healthy: false, failure_tolerance: 0 });
    expect((dead.servers as Record<string, Obj>)['node-2']).toMatchObject({ healthy: false, node_status: 'failed', status: 'voter' });
    await admin('nodes/node-2', { dead: false, lag_entries: 5000 });
    expect(await autopilot()).toMatchObject({ healthy: false, failure_tolerance: 0 });
  });

  it('a five-node cluster tolerates two losses', async () => {
    const five = await startSecretsSimulator({ clusters: [{ name: 'five', nodes: 5 }] }, { walTickMs: 3_600_000 });
    try {
      const state = (await get(`${five.cluster('five').url}/v1/sys/storage/raft/autopilot/state`, five.cluster('five').rootToken)).body.data as Obj;
      expect(state).toMatchObject({ failure_tolerance: 2 });
    } finally {
      await five.close();
    }
  });

  it('refuses a fault it cannot make, saying why', async () => {
    expect((await admin('nodes/node-7', { sealed: true })).status).toBe(404);
    expect((await admin('nodes/node-1', { lag_entries: -1 })).body.errors).toEqual(['"lag_entries" must not be negative']);
    expect((await admin('license', {})).status).toBe(400);
  });
});
