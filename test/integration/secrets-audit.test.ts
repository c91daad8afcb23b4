import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { series } from '../helpers/exposition.js';
import { NEVER } from '../helpers/schedules.js';

/**
 * Blocked audit devices, seen as a client sees them: the simulator's nodes answer sys/health while
 * what they audit hangs or fails 500, and vigil's audited request (its token's lookup-self) at the
 * cluster's address and at each node the token may go to says which are blocked. A forged node
 * address in an HA status answer is polled for its health, and never receives the token.
 */
let sim: SecretsSimulator;
let vigil: TestDaemon;
let forging: http.Server;
let trap: http.Server;
const trapped: http.IncomingHttpHeaders[] = [];

const admin = async (path: string, body: unknown) => {
  const res = await fetch(`${sim.cluster('raft').url}/_sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};
const url = (id: string) => sim.cluster('raft').nodes.get(id)!;
const node = (target: string, id: string) => series('secrets_node_requests_blocked', { target, node: id, address: url(id) });
const cluster = (target: string) => series('secrets_requests_blocked', { target });
const listen = async (s: http.Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
};
async function poll(): Promise<Map<string, number>> {
  await vigil.collect();
  return vigil.metrics();
}

beforeAll(async () => {
  sim = await startSecretsSimulator({ clusters: [{ name: 'raft' }] }, { walTickMs: 3_600_000 });
  // A node that answers like a healthy standby and records what it was sent.
  trap = http.createServer((req, res) => {
    trapped.push(req.headers);
    res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ initialized: true, sealed: false, standby: true }));
  });
  const trapPort = await listen(trap);
  // The cluster's address, as a forged answer would come: the HA status names one node more, at `localhost`.
  forging = http.createServer((req, res) => {
    void (async () => {
      const upstream = await fetch(`${sim.cluster('raft').url}${req.url}`, {
        headers: req.headers as Record<string, string>,
        signal: AbortSignal.timeout(10_000),
      }).catch(() => undefined);
      if (!upstream) return void res.destroy();
      let body = await upstream.text();
      if (req.url === '/v1/sys/ha-status' && upstream.status === 200) {
        const answer = JSON.parse(body) as { data?: { nodes?: unknown[] }; nodes?: unknown[]; Nodes?: unknown[] };
        const forged = {
          hostname: 'forged',
          api_address: `http://localhost:${trapPort}`,
          cluster_address: `https://localhost:${trapPort + 1}`,
          active_node: false,
        };
        (answer.Nodes ?? answer.nodes ?? answer.data?.nodes)?.push(forged);
        body = JSON.stringify(answer);
      }
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(body);
    })();
  });
  const forgingPort = await listen(forging);
  const token = tempFile('root-token', sim.cluster('raft').rootToken);
  const wrong = tempFile('wrong-token', 'not-a-token');
  const common = `token_file: "${token}", timeout: 1s, schedule: "${NEVER}", replication_kinds: [dr]`;
  vigil = await startTestDaemon(
    'secrets:\n' +
      `  - { name: allowed, address: "${sim.cluster('raft').url}", ${common}, nodes: { audit_check: { timeout: 500ms, send_token_to: ["127.0.0.1"] } } }\n` +
      `  - { name: address-only, address: "${sim.cluster('raft').url}", ${common}, nodes: { audit_check: { timeout: 500ms } } }\n` +
      `  - { name: forged, address: "http://127.0.0.1:${forgingPort}", ${common}, nodes: { audit_check: { timeout: 500ms, send_token_to: ["127.0.0.1", ".vault.internal"] } } }\n` +
      `  - { name: refused, address: "${sim.cluster('raft').url}", token_file: "${wrong}", timeout: 1s, schedule: "${NEVER}", replication_kinds: [dr], nodes: { audit_check: { timeout: 500ms, send_token_to: ["127.0.0.1"] } } }\n` +
      `  - { name: unchecked, address: "${sim.cluster('raft').url}", ${common}, nodes: { audit_check: { enabled: false } } }\n`,
  );
}, 60_000);
afterAll(async () => {
  await vigil?.close();
  forging?.closeAllConnections();
  trap?.closeAllConnections();
  await Promise.all([forging, trap].map((s) => new Promise((r) => s?.close(r))));
  await sim?.close();
});
beforeEach(async () => {
  for (const id of ['node-1', 'node-2', 'node-3']) await admin(`nodes/${id}`, { audit: 'ok' });
});

describe('an audited request beside the unaudited health', () => {
  it('says every node and the cluster serve while their devices log', async () => {
    const m = await poll();
    for (const id of ['node-1', 'node-2', 'node-3']) expect(m.get(node('allowed', id))).toBe(0);
    expect(m.get(cluster('allowed'))).toBe(0);
    expect(m.get(cluster('address-only'))).toBe(0);
  });

  it('says the active node, and the standby that forwards to it, are blocked while their requests hang', async () => {
    await admin('nodes/node-1', { audit: 'hang' });
    const m = await poll();
    expect(m.get(node('allowed', 'node-1'))).toBe(1);
    // A plain standby forwards to the active node; a performance standby serves reads itself.
    expect(m.get(node('allowed', 'node-2'))).toBe(1);
    expect(m.get(node('allowed', 'node-3'))).toBe(0);
    expect(m.get(cluster('allowed'))).toBe(1);
    // Where the nodes are not asked, the cluster's address stands for them.
    expect(m.get(cluster('address-only'))).toBe(1);
    expect([...m.keys()].filter((k) => k.startsWith('secrets_node_requests_blocked{') && k.includes('target="address-only"'))).toEqual([]);
    // The nodes still answer their health: none is down for it.
    for (const id of ['node-1', 'node-2', 'node-3']) expect(m.get(series('secrets_node_up', { target: 'allowed', node: id, address: url(id) }))).toBe(1);
  });

  it('tells a node whose devices refuse (500) apart from the others', async () => {
    await admin('nodes/node-3', { audit: 'error' });
    const m = await poll();
    expect(m.get(node('allowed', 'node-3'))).toBe(1);
    expect(m.get(node('allowed', 'node-1'))).toBe(0);
    expect(m.get(cluster('allowed'))).toBe(0);
  });

  it('reads a refused token (403) as served: the refusal was audited, and no page is due', async () => {
    const m = await poll();
    expect(m.get(cluster('refused'))).toBe(0);
    // The token cannot read the HA status either: the configured address is the one node polled, named by it.
    const address = sim.cluster('raft').url;
    expect(m.get(series('secrets_node_requests_blocked', { target: 'refused', node: address, address }))).toBe(0);
  });

  it('exports nothing of it where the check is off', async () => {
    await admin('nodes/node-1', { audit: 'hang' });
    const m = await poll();
    expect([...m.keys()].filter((k) => /requests_blocked\{/.test(k) && k.includes('target="unchecked"'))).toEqual([]);
  });
});

describe('a forged node address in an answer', () => {
  it('is polled for its health, and never sent the token', async () => {
    trapped.length = 0;
    const m = await poll();
    expect(trapped.length).toBeGreaterThan(0);
    for (const h of trapped) {
      expect(h['x-secrets-token']).toBeUndefined();
      expect(h.authorization).toBeUndefined();
    }
    // The nodes the operator allowed are asked, the forged one is not.
    expect(m.get(node('forged', 'node-1'))).toBe(0);
    expect([...m.keys()].filter((k) => k.startsWith('secrets_node_requests_blocked{') && k.includes('forged'))).toHaveLength(3);
  });
});
