import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { series, seriesOf } from '../helpers/exposition.js';
import { NEVER } from '../helpers/schedules.js';
import { feedsOf } from '../../src/collectors/endpoint.js';
import { secretsCollector } from '../../src/collectors/secrets/collector.js';
import { nodesPlan } from '../../src/collectors/secrets/plans.js';
import { sealBackendStatusEndpoint } from '../../src/collectors/secrets/seal-backend-status.js';
import { sealStatusEndpoint } from '../../src/collectors/secrets/seal-status.js';
import type { Plan } from '../../src/collectors/plan.js';
import { stepsFor } from '../../src/collectors/run-plan.js';

/**
 * Every node of a secrets cluster, found from its one configured address: three simulated nodes
 * (an active node, a standby, a performance standby, all raft voters), and each node fault the
 * simulator makes changing exactly the series it should, no other.
 */
let sim: SecretsSimulator;
let old: SecretsSimulator;
let vigil: TestDaemon;

const admin = async (path: string, body: unknown = {}, cluster = 'raft') => {
  const res = await fetch(`${sim.cluster(cluster).url}/_sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};
const url = (id: string) => sim.cluster('raft').nodes.get(id)!;
// A node goes by its raft node ID (as its raft server does), beside the address it is polled at; one no answer names, by that address.
const node = (name: string, id: string, extra: Record<string, string> = {}) =>
  series(`secrets_${name}`, { target: 'raft', node: id, address: url(id), ...extra });
const unnamed = (address: string) => ({ node: address, address });
const server = (name: string, id: string, extra: Record<string, string> = {}) => series(`secrets_raft_${name}`, { target: 'raft', server: id, ...extra });
const cluster = (name: string, extra: Record<string, string> = {}) => series(`secrets_${name}`, { target: 'raft', ...extra });
const info = (id: string, version = '1.17.3+ent', name = 'vault-cluster-raft') => node('node_info', id, { version, cluster_name: name });

/** The node families of the `raft` target, without the echo times that move every poll. */
async function nodeSeries(): Promise<Map<string, number>> {
  await vigil.collect();
  const all = await vigil.metrics();
  return new Map(
    [...all].filter(
      ([k]) => /^secrets_(node|nodes|raft|active|license|ha_status|leader)_/.test(k) && k.includes('target="raft"') && !k.startsWith('secrets_node_last_echo'),
    ),
  );
}
/** What a voter that stops counting for the quorum changes: the cluster's tolerance and health, its own health, contact and lag. */
const voterLost = (id: string) => [
  cluster('raft_failure_tolerance'),
  cluster('raft_optimistic_failure_tolerance'),
  cluster('raft_autopilot_healthy'),
  server('server_healthy', id),
  server('server_last_contact_seconds', id),
  server('server_index_lag', id),
];
/** Every family of each node's seal and seal backends. */
const sealFamilies = [sealStatusEndpoint, sealBackendStatusEndpoint].flatMap((e) => feedsOf(e as never).map((f) => f.name));
const changed = (a: Map<string, number>, b: Map<string, number>) => [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();

beforeAll(async () => {
  sim = await startSecretsSimulator(
    {
      clusters: [{ name: 'raft' }, { name: 'five', nodes: 5 }, { name: 'presealed' }, { name: 'drpri' }, { name: 'drsec' }],
      replication: [{ kind: 'dr', primary: 'drpri', secondaries: ['drsec'] }],
    },
    { walTickMs: 3_600_000 },
  );
  // Sealed before vigil first looks: no HA status ever names it, autopilot only by its raft address.
  await admin('nodes/node-2', { sealed: true }, 'presealed');
  old = await startSecretsSimulator({ clusters: [{ name: 'old' }] }, { walTickMs: 3_600_000, profile: 'pre-1.5' });
  const token = tempFile('root-token', sim.cluster('raft').rootToken);
  const oldToken = tempFile('old-root-token', old.cluster('old').rootToken);
  const presealedToken = tempFile('presealed-root-token', sim.cluster('presealed').rootToken);
  const drsecToken = tempFile('drsec-root-token', sim.cluster('drsec').rootToken);
  const listed = [url('node-1'), url('node-2')].map((u) => `"${u}"`).join(', ');
  vigil = await startTestDaemon(
    'secrets:\n' +
      `  - { name: raft, address: "${sim.cluster('raft').url}", token_file: "${token}", timeout: 1s, schedule: "${NEVER}", replication_kinds: [dr] }\n` +
      `  - { name: no-token, address: "${sim.cluster('five').url}", timeout: 1s, schedule: "${NEVER}", replication_kinds: [dr] }\n` +
      `  - { name: listed, address: "${sim.cluster('raft').url}", timeout: 1s, schedule: "${NEVER}", replication_kinds: [dr], nodes: { addresses: [${listed}] } }\n` +
      `  - { name: presealed, address: "${sim.cluster('presealed').url}", token_file: "${presealedToken}", timeout: 1s, schedule: "${NEVER}", replication_kinds: [dr] }\n` +
      `  - { name: drsec, address: "${sim.cluster('drsec').url}", token_file: "${drsecToken}", timeout: 1s, schedule: "${NEVER}", replication_kinds: [dr] }\n` +
      `  - { name: old, address: "${old.cluster('old').url}", token_file: "${oldToken}", timeout: 1s, schedule: "${NEVER}", replication_kinds: [dr] }\n`,
  );
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
  await old?.close();
});
beforeEach(async () => {
  for (const id of ['node-1', 'node-2', 'node-3'])
    await admin(`nodes/${id}`, { sealed: false, dead: false, removed: false, lag_entries: 0, version: '1.17.3+ent' });
  await admin('leader', { node: 'node-1' });
  await admin('license', { expires_in_seconds: 365 * 86_400 });
});

describe('a cluster of three nodes behind one address', () => {
  it('finds its nodes from the HA status and polls each at its own address', async () => {
    const m = await nodeSeries();
    expect(m.get(cluster('nodes_discovered'))).toBe(3);
    expect(m.get(cluster('node_discovery_info', { source: 'ha_status', reason: '' }))).toBe(1);
    for (const id of ['node-1', 'node-2', 'node-3']) {
      expect(m.get(node('node_up', id))).toBe(1);
      expect(m.get(node('node_sealed', id))).toBe(0);
      expect(m.get(node('node_initialized', id))).toBe(1);
      expect(m.get(info(id))).toBe(1);
      expect(m.get(node('node_clock_skew_seconds', id))).toBe(0);
      expect(m.get(server('server_healthy', id))).toBe(1);
      expect(m.get(server('server_index_lag', id))).toBe(0);
      // A year of licence, as every node reports it.
      expect(m.get(node('license_expiry_timestamp_seconds', id))! - Date.now() / 1000).toBeGreaterThan(364 * 86_400);
    }
    expect(m.get(node('node_role', 'node-1', { role: 'active' }))).toBe(1);
    expect(m.get(node('node_role', 'node-2', { role: 'standby' }))).toBe(1);
    expect(m.get(node('node_role', 'node-3', { role: 'performance_standby' }))).toBe(1);
    expect(m.get(node('active_node_info', 'node-1'))).toBe(1);
    expect(m.get(cluster('active_node_changes_total'))).toBe(0);
    expect(m.get(cluster('raft_failure_tolerance'))).toBe(1);
    expect(m.get(cluster('raft_optimistic_failure_tolerance'))).toBe(1);
    expect(m.get(cluster('raft_voters'))).toBe(3);
    expect(m.get(cluster('raft_autopilot_healthy'))).toBe(1);
    expect(m.get(server('server_status', 'node-1', { status: 'leader' }))).toBe(1);
    expect(m.get(server('server_status', 'node-2', { status: 'voter' }))).toBe(1);
    // An idle node echoes within half a second in the simulator; the leader is its own contact.
    expect(m.get(server('server_last_contact_seconds', 'node-1'))).toBe(0);
    expect(m.get(server('server_last_contact_seconds', 'node-2'))).toBeCloseTo(0.4127, 6);
  });

  it('counts the requests to each node, and a standby answering 429 is no rate limit', async () => {
    await vigil.collect();
    const before = await vigil.metrics();
    await vigil.collect();
    const after = await vigil.metrics();
    const requests = (m: Map<string, number>, id: string) => m.get(series('vigil_upstream_node_requests_total', { target: 'raft', address: url(id) })) ?? NaN;
    // Each node that answers is asked once for each endpoint its node poll calls at a node's own address.
    const raft = secretsCollector.target.parse({ name: 'raft', address: sim.cluster('raft').url, replication_kinds: ['dr'] });
    const atEachNode = stepsFor(nodesPlan as Plan, raft).filter((s) => s.kind === 'call' && s.via).length;
    for (const id of ['node-1', 'node-2', 'node-3']) expect(requests(after, id) - requests(before, id)).toBe(atEachNode);
    expect(after.get(series('vigil_upstream_rate_limited_total', { target: 'raft' }))).toBe(0);
  });
});

describe('each node fault changes exactly its series', () => {
  it('a sealed standby: sealed, no role, no echo, and raft tolerance lost with it (a sealed voter leaves the quorum)', async () => {
    const before = await nodeSeries();
    await admin('nodes/node-2', { sealed: true });
    const after = await nodeSeries();
    expect(after.get(node('node_sealed', 'node-2'))).toBe(1);
    expect(after.get(node('node_up', 'node-2'))).toBe(1);
    expect(after.get(cluster('raft_failure_tolerance'))).toBe(0);
    expect(changed(before, after)).toEqual(
      [
        node('node_sealed', 'node-2'),
        node('node_role', 'node-2', { role: 'standby' }),
        info('node-2'),
        info('node-2', '1.17.3+ent', ''),
        node('node_clock_skew_seconds', 'node-2'),
        ...voterLost('node-2'),
      ].sort(),
    );
  });

  it('a killed voter: still polled (autopilot keeps it), down, and tolerance 0', async () => {
    const before = await nodeSeries();
    await admin('nodes/node-3', { dead: true });
    const after = await nodeSeries();
    expect(after.get(node('node_up', 'node-3'))).toBe(0);
    // The node's failure, not the collector's: counted by reason, but the node poll is up and not failing.
    const m = await vigil.metrics();
    const job = { collector: 'secrets_nodes', target: 'raft' };
    expect(m.get(series('vigil_collector_up', job))).toBe(1);
    expect(m.get(series('vigil_collector_failures_total', { ...job, reason: 'connect' }))).toBeGreaterThan(0);
    expect([...seriesOf(m, 'vigil_collector_failing').keys()].filter((k) => k.includes('collector="secrets_nodes"') && k.includes('target="raft"'))).toEqual(
      [],
    );
    expect(after.get(cluster('nodes_discovered'))).toBe(3);
    const gone = [
      node('node_initialized', 'node-3'),
      node('node_sealed', 'node-3'),
      ...['active', 'standby', 'performance_standby', 'dr_secondary', 'removed'].map((role) => node('node_role', 'node-3', { role })),
      info('node-3'),
      node('license_expiry_timestamp_seconds', 'node-3'),
      node('node_clock_skew_seconds', 'node-3'),
      // A node that does not answer its health is asked nothing else: its seal's series go with it.
      ...[...before.keys()].filter((k) => k.includes(`address="${url('node-3')}"`) && sealFamilies.some((f) => k.startsWith(`${f}{`))),
    ];
    expect(changed(before, after)).toEqual([node('node_up', 'node-3'), ...gone, ...voterLost('node-3')].sort());
  });

  it('a lagging voter: its index lag and health, and the tolerance', async () => {
    const before = await nodeSeries();
    await admin('nodes/node-3', { lag_entries: 5000 });
    const after = await nodeSeries();
    expect(after.get(server('server_index_lag', 'node-3'))).toBe(5000);
    expect(after.get(server('server_last_contact_seconds', 'node-3'))).toBe(2.5);
    expect(changed(before, after)).toEqual([...voterLost('node-3')].sort());
  });

  it('the leader moving: the active node, its roles, the raft leader, and one change counted', async () => {
    const before = await nodeSeries();
    await admin('leader', { node: 'node-2' });
    const after = await nodeSeries();
    expect(after.get(cluster('active_node_changes_total'))! - before.get(cluster('active_node_changes_total'))!).toBe(1);
    expect(changed(before, after)).toEqual(
      [
        node('active_node_info', 'node-1'),
        node('active_node_info', 'node-2'),
        cluster('active_node_changes_total'),
        node('node_role', 'node-1', { role: 'active' }),
        node('node_role', 'node-1', { role: 'performance_standby' }),
        node('node_role', 'node-2', { role: 'active' }),
        node('node_role', 'node-2', { role: 'standby' }),
        server('server_status', 'node-1', { status: 'leader' }),
        server('server_status', 'node-1', { status: 'voter' }),
        server('server_status', 'node-2', { status: 'leader' }),
        server('server_status', 'node-2', { status: 'voter' }),
        server('server_last_contact_seconds', 'node-1'),
        server('server_last_contact_seconds', 'node-2'),
      ].sort(),
    );
  });

  it('a licence near its end: every node reports the new expiry, nothing else moves', async () => {
    const before = await nodeSeries();
    await admin('license', { expires_in_seconds: 5 * 86_400 });
    const after = await nodeSeries();
    expect(after.get(node('license_expiry_timestamp_seconds', 'node-1'))! - Date.now() / 1000).toBeLessThan(5 * 86_400 + 5);
    expect(changed(before, after)).toEqual(['node-1', 'node-2', 'node-3'].map((id) => node('license_expiry_timestamp_seconds', id)).sort());
  });

  it('a node removed from the cluster: its series go without a reload, two voters remain', async () => {
    const before = await nodeSeries();
    await admin('nodes/node-3', { removed: true });
    const after = await nodeSeries();
    expect(after.get(cluster('nodes_discovered'))).toBe(2);
    expect(after.get(cluster('raft_voters'))).toBe(2);
    const gone = [...before.keys()].filter((k) => k.includes(url('node-3')) || k.includes('server="node-3"'));
    expect(gone.length).toBeGreaterThan(10);
    expect(changed(before, after)).toEqual(
      [...gone, cluster('nodes_discovered'), cluster('raft_voters'), cluster('raft_failure_tolerance'), cluster('raft_optimistic_failure_tolerance')].sort(),
    );
  });

  it('two voters of three dead: the survivor is up with no active node, and the nodes read before stay polled', async () => {
    await nodeSeries();
    await admin('nodes/node-1', { dead: true });
    await admin('nodes/node-2', { dead: true });
    const m = await nodeSeries();
    expect(m.get(cluster('node_discovery_info', { source: 'ha_status', reason: 'error' }))).toBe(1);
    expect(m.get(cluster('nodes_discovered'))).toBe(3);
    expect([...m.keys()].filter((k) => k.startsWith('secrets_active_node_info'))).toEqual([]);
    expect(m.get(node('node_up', 'node-3'))).toBe(1);
    expect(m.get(node('node_role', 'node-3', { role: 'standby' }))).toBe(1);
    expect(m.get(node('node_role', 'node-3', { role: 'active' }))).toBe(0);
    expect([m.get(node('node_up', 'node-1')), m.get(node('node_up', 'node-2'))]).toEqual([0, 0]);
  });

  it('a node left behind in an upgrade: its version, nothing else', async () => {
    const before = await nodeSeries();
    await admin('nodes/node-2', { version: '1.16.9+ent' });
    const after = await nodeSeries();
    expect(changed(before, after)).toEqual([info('node-2'), info('node-2', '1.16.9+ent')].sort());
  });
});

describe('a standby sealed before vigil first looked', () => {
  it('is polled where its API address is (learned from the nodes the HA status pairs), and reads sealed, not down', async () => {
    const m = await vigil.metrics();
    const sealed = sim.cluster('presealed').nodes.get('node-2')!;
    expect(m.get(series('secrets_nodes_discovered', { target: 'presealed' }))).toBe(3);
    expect(m.get(series('secrets_node_up', { target: 'presealed', node: 'node-2', address: sealed }))).toBe(1);
    expect(m.get(series('secrets_node_sealed', { target: 'presealed', node: 'node-2', address: sealed }))).toBe(1);
  });
});

describe('where the node list cannot be read', () => {
  const of = (m: Map<string, number>, target: string) =>
    [...m.keys()].filter((k) => k.includes(`target="${target}"`) && /^secrets_(node|nodes|raft|ha_status)_/.test(k));

  it('a token that may not read the HA status or autopilot: the configured address only, reason forbidden, no raft series', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('secrets_node_discovery_info', { target: 'no-token', source: 'address_only', reason: 'forbidden' }))).toBe(1);
    expect(m.get(series('secrets_node_up', { target: 'no-token', ...unnamed(sim.cluster('five').url) }))).toBe(1);
    expect(m.get(series('secrets_node_role', { target: 'no-token', ...unnamed(sim.cluster('five').url), role: 'active' }))).toBe(1);
    expect(of(m, 'no-token').filter((k) => k.startsWith('secrets_raft_') || k.startsWith('secrets_ha_status_'))).toEqual([]);
  });

  it('an older service without sys/ha-status or autopilot: the configured address only, reason not_found', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('secrets_node_discovery_info', { target: 'old', source: 'address_only', reason: 'not_found' }))).toBe(1);
    expect(m.get(series('secrets_nodes_discovered', { target: 'old' }))).toBe(1);
    expect(of(m, 'old').filter((k) => k.startsWith('secrets_raft_') || k.startsWith('secrets_ha_status_'))).toEqual([]);
    expect(m.has(series('secrets_license_expiry_timestamp_seconds', { target: 'old', ...unnamed(old.cluster('old').url) }))).toBe(false);
    expect(m.get(series('vigil_collector_up', { collector: 'secrets_nodes', target: 'old' }))).toBe(1);
  });

  it('a DR secondary, which disables the HA status and autopilot (400): its address only, reason unsupported, and no failure', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('secrets_node_discovery_info', { target: 'drsec', source: 'address_only', reason: 'unsupported' }))).toBe(1);
    expect(m.get(series('secrets_node_role', { target: 'drsec', ...unnamed(sim.cluster('drsec').url), role: 'dr_secondary' }))).toBe(1);
    expect(m.get(series('vigil_collector_up', { collector: 'secrets_nodes', target: 'drsec' }))).toBe(1);
  });

  it('nodes the config lists: those, whatever the cluster reports', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('secrets_node_discovery_info', { target: 'listed', source: 'configured', reason: '' }))).toBe(1);
    expect(m.get(series('secrets_nodes_discovered', { target: 'listed' }))).toBe(2);
    expect(m.has(series('secrets_node_up', { target: 'listed', node: 'node-3', address: url('node-3') }))).toBe(false);
  });
});
