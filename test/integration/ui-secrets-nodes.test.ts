import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import type { Estate } from '../../src/server/estate-model.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';

/**
 * A secrets cluster's nodes on the estate page and in its JSON, over HTTP as curl sees them: three
 * simulated nodes, a standby sealed, another answering a hostile version string.
 */
const HOSTILE = '1.17.3<img src=x onerror="alert(1)">';
let sim: SecretsSimulator;
let vigil: TestDaemon;

const admin = async (path: string, body: unknown) => {
  const res = await fetch(`${sim.cluster('raft').url}/_sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.text()).toBe(200);
};
const url = (id: string) => sim.cluster('raft').nodes.get(id)!;

beforeAll(async () => {
  sim = await startSecretsSimulator({ clusters: [{ name: 'raft' }] }, { walTickMs: 3_600_000 });
  const token = tempFile('root-token', sim.cluster('raft').rootToken);
  vigil = await startTestDaemon(
    `secrets:\n  - { name: raft, address: "${sim.cluster('raft').url}", token_file: "${token}", timeout: 1s, schedule: "${NEVER}", replication_kinds: [dr] }\n`,
  );
  await admin('nodes/node-2', { sealed: true });
  await admin('nodes/node-3', { version: HOSTILE });
  await vigil.collect();
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});

describe('GET /api/v1/estate', () => {
  it('lists each node with its health, role, seal and version, and the cluster’s active node and quorum', async () => {
    const estate = (await (await fetch(`${vigil.url}/api/v1/estate`)).json()) as Estate;
    const raft = estate.secrets.find((c) => c.target === 'raft')!;
    // The active node by the name and address its row has: the raft node ID, and the API address vigil polls.
    expect(raft.nodes).toMatchObject({ source: 'ha_status', reason: null, activeNode: { name: 'node-1', address: url('node-1') } });
    const byAddress = new Map(raft.nodes!.nodes.map((n) => [n.address, n]));
    expect(byAddress.get(url('node-1'))).toMatchObject({ name: 'node-1', up: true, role: 'active', sealed: false, initialized: true });
    expect(byAddress.get(url('node-2'))).toMatchObject({ up: true, role: null, sealed: true });
    expect(byAddress.get(url('node-3'))).toMatchObject({ up: true, sealed: false, version: HOSTILE });
    expect(raft.nodes!.raft).toMatchObject({ voters: 3, healthy: false });
    expect(raft.problems).toContain(`node node-2 (${url('node-2')}) sealed`);
  });
});

describe('GET /', () => {
  it('renders every node without script, the hostile version as text', async () => {
    const res = await fetch(`${vigil.url}/`);
    expect(res.status).toBe(200);
    const text = await res.text();
    // An address breaks only after its scheme and before a dot of its host, never inside host:port.
    const wrapped = (u: string) => `<span class="addr">${u.replace('://', '://<wbr>').replace(/\./g, '<wbr>.')}</span>`;
    expect(text).toContain(`<code>node-1</code> <span class="muted">${wrapped(url('node-1'))}</span> <span class="muted">(active)</span>`);
    expect(text).toContain(`active node <code>node-1</code> <span class="muted">${wrapped(url('node-1'))}</span>`);
    expect(text).toContain(`<tr class="row-bad"><th scope="row">raft</th><td><code>node-2</code> <span class="muted">${wrapped(url('node-2'))}</span></td>`);
    expect(text).not.toContain('<img');
    expect(text).toContain('1.17.3&#60;img src=x onerror=&#34;alert(1)&#34;&#62;');
    expect(text).toMatch(/<strong>raft<\/strong>: node node-2 \(http:\/\/127\.0\.0\.1:\d+\) sealed/);
  });
});
