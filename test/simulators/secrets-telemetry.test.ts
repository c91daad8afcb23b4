import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { parseExposition, series } from '../helpers/exposition.js';
import { promtoolCheckMetrics } from '../helpers/tools.js';

/**
 * Each node's own `sys/metrics?format=prometheus`: the server's metric names and labels, its auth
 * (a token, or none where the listener allows it), the sealed node's 503, and the faults that drive
 * the families (blocked audit devices, failing snapshots, the telemetry faults).
 */
let sim: SecretsSimulator;
const CLUSTER = { cluster: 'vault-cluster-tel' };

const nodeUrl = (node: string, cluster = 'tel') => sim.cluster(cluster).nodes.get(node)!;
const root = () => sim.cluster('tel').rootToken;
async function scrapeRaw(node: string, token: string | null = root(), query = '?format=prometheus', cluster = 'tel') {
  const res = await fetch(`${nodeUrl(node, cluster)}/v1/sys/metrics${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}
async function scrape(node: string): Promise<Map<string, number>> {
  const r = await scrapeRaw(node);
  expect(r.status).toBe(200);
  return parseExposition(r.text);
}
async function admin(path: string, body?: unknown, method = 'POST') {
  const res = await fetch(`${sim.cluster('tel').url}/_sim/${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const replicationStatus = (node: string) => fetch(`${nodeUrl(node)}/v1/sys/replication/dr/status`, { headers: { 'x-secrets-token': root() } });

beforeAll(async () => {
  sim = await startSecretsSimulator({
    clusters: [
      { name: 'tel', nodes: 3, snapshots: [{ name: 'hourly' }] },
      { name: 'open', nodes: 1, unauthenticatedMetricsAccess: true },
    ],
  });
});
afterAll(() => sim.close());
beforeEach(async () => {
  for (const id of ['node-1', 'node-2', 'node-3']) await admin(`nodes/${id}`, { sealed: false, dead: false, audit: 'ok' });
  await admin('leader', { node: 'node-1' });
  expect((await admin('telemetry', undefined, 'DELETE')).status).toBe(200);
});

describe('the exposition', () => {
  it('is Prometheus text 0.0.4 that promtool parses, its only complaints the server’s counters without _total', async () => {
    const r = await scrapeRaw('node-1');
    expect(r.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const check = promtoolCheckMetrics(r.text);
    const complaints = check.output.split('\n').filter((l) => l !== '' && !/counter metrics should have "_total" suffix/.test(l));
    expect(complaints).toEqual([]);
    expect(r.text).toMatch(/^# TYPE vault_audit_log_request_failure counter$/m);
    expect(r.text).toMatch(/^# TYPE vault_core_handle_request summary$/m);
  });

  it('serves the server’s names with its cluster label: unsealed, active on the active node only', async () => {
    const [active, standby] = [await scrape('node-1'), await scrape('node-2')];
    expect(active.get(series('vault_core_unsealed', CLUSTER))).toBe(1);
    expect(active.get(series('vault_core_active', CLUSTER))).toBe(1);
    expect(standby.get(series('vault_core_active', CLUSTER))).toBe(0);
    expect(active.get(series('vault_expire_num_leases', CLUSTER))).toBe(12);
    expect(standby.has(series('vault_expire_num_leases', CLUSTER))).toBe(false);
    expect(active.get(series('vault_token_count_by_ttl', { ...CLUSTER, auth_method: 'token', creation_ttl: '+Inf', namespace: 'root' }))).toBe(1);
    for (const q of ['0.5', '0.9', '0.99']) expect(active.has(series('vault_wal_flushready', { ...CLUSTER, quantile: q }))).toBe(true);
    expect(active.has(series('vault_wal_persistwals_count', CLUSTER))).toBe(true);
    expect(active.get(series('vault_raft_storage_stats_fsm_pending', CLUSTER))).toBe(0);
  });

  it('answers the JSON form without a format, and 400 for a format it does not know', async () => {
    const json = await scrapeRaw('node-1', root(), '');
    expect(json.status).toBe(200);
    const body = JSON.parse(json.text) as { Gauges: Array<{ Name: string; Value: number }> };
    expect(body.Gauges).toContainEqual(expect.objectContaining({ Name: 'vault.core.unsealed', Value: 1 }));
    const bad = await scrapeRaw('node-1', root(), '?format=xml');
    expect([bad.status, bad.text]).toEqual([400, 'metric response format "xml" unknown']);
  });
});

describe('access', () => {
  it('takes any token the cluster knows, refuses none or an unknown one with 403', async () => {
    const reader = ((await admin('tokens', { ttl_seconds: 600 })).body.token as string) ?? '';
    expect((await scrapeRaw('node-2', reader)).status).toBe(200);
    for (const token of [null, 's.unknown']) {
      const r = await scrapeRaw('node-2', token);
      expect([r.status, JSON.parse(r.text)]).toEqual([403, { errors: ['permission denied'] }]);
    }
  });

  it('needs no token where the listener allows unauthenticated metrics access', async () => {
    expect((await scrapeRaw('node-1', null, '?format=prometheus', 'open')).status).toBe(200);
    await admin('telemetry', { node: 'node-3', unauthenticated_metrics_access: true });
    expect((await scrapeRaw('node-3', null)).status).toBe(200);
    expect((await scrapeRaw('node-2', null)).status).toBe(403);
  });

  it('stops serving on a sealed node: 503, as every request that needs a token', async () => {
    await admin('nodes/node-2', { sealed: true });
    const r = await scrapeRaw('node-2');
    expect([r.status, JSON.parse(r.text)]).toEqual([503, { errors: ['service is sealed'] }]);
    expect((await scrapeRaw('node-1')).status).toBe(200);
  });
});

describe('faults that drive the families', () => {
  it('counts one audit request failure per request a blocked node refuses, and keeps answering sys/metrics', async () => {
    const before = (await scrape('node-1')).get(series('vault_audit_log_request_failure', CLUSTER))!;
    await admin('nodes/node-1', { audit: 'error' });
    for (let i = 0; i < 3; i++) expect((await replicationStatus('node-1')).status).toBe(500);
    expect((await scrape('node-1')).get(series('vault_audit_log_request_failure', CLUSTER))).toBe(before + 3);
    // A plain standby forwards to the active node, whose blocked devices refuse what it is asked.
    const standbyBefore = (await scrape('node-2')).get(series('vault_audit_log_request_failure', CLUSTER))!;
    expect((await replicationStatus('node-2')).status).toBe(500);
    expect((await scrape('node-2')).get(series('vault_audit_log_request_failure', CLUSTER))).toBe(standbyBefore + 1);
  });

  it('counts the answers by their status code, and the 5xx fault makes requests fail 500', async () => {
    const code = (m: Map<string, number>, c: string, type: string) => m.get(series('vault_core_response_status_code', { ...CLUSTER, code: c, type })) ?? 0;
    const before = await scrape('node-3');
    expect((await fetch(`${nodeUrl('node-3')}/v1/sys/nothing-here`, { headers: { 'x-secrets-token': root() } })).status).toBe(404);
    await admin('telemetry', { node: 'node-3', error_rate: 1 });
    expect((await replicationStatus('node-3')).status).toBe(500);
    const after = await scrape('node-3');
    expect(code(after, '404', '4xx') - code(before, '404', '4xx')).toBe(1);
    expect(code(after, '500', '5xx') - code(before, '500', '5xx')).toBe(1);
    expect(after.get(series('vault_core_handle_request_count', CLUSTER))).toBeGreaterThan(before.get(series('vault_core_handle_request_count', CLUSTER))!);
  });

  it('sets leases, irrevocable leases, infinite tokens, FSM backlog and WAL latencies; DELETE puts them back', async () => {
    const set = await admin('telemetry', {
      leases: 5000,
      irrevocable_leases: 7,
      infinite_tokens: 40,
      fsm_pending: 900,
      wal_flush_ready_ms: 750,
      wal_persist_wals_ms: 1200,
    });
    expect(set.status).toBe(200);
    const m = await scrape('node-1');
    expect(m.get(series('vault_expire_num_leases', CLUSTER))).toBe(5000);
    expect(m.get(series('vault_expire_num_irrevocable_leases', CLUSTER))).toBe(7);
    expect(m.get(series('vault_token_count_by_ttl', { ...CLUSTER, auth_method: 'token', creation_ttl: '+Inf', namespace: 'root' }))).toBe(41);
    expect(m.get(series('vault_raft_storage_stats_fsm_pending', CLUSTER))).toBe(900);
    expect(m.get(series('vault_wal_flushready', { ...CLUSTER, quantile: '0.99' }))).toBe(750);
    expect(m.get(series('vault_wal_persistwals', { ...CLUSTER, quantile: '0.5' }))).toBe(1200);
    await admin('telemetry', undefined, 'DELETE');
    expect((await scrape('node-1')).get(series('vault_expire_num_leases', CLUSTER))).toBe(12);
  });

  it('refuses a telemetry fault it cannot apply, and changes nothing', async () => {
    expect((await admin('telemetry', { leases: -1 })).status).toBe(400);
    expect((await admin('telemetry', { leases: 3, error_rate: 2 })).status).toBe(400);
    expect((await admin('telemetry', { lease: 3 })).status).toBe(400);
    expect((await admin('telemetry', { node: 'node-9', leases: 3 })).status).toBe(404);
    expect((await scrape('node-1')).get(series('vault_expire_num_leases', CLUSTER))).toBe(12);
  });

  it('raises the snapshot configuration’s save errors while its automated snapshots fail', async () => {
    const errors = async () => (await scrape('node-1')).get(series('vault_autosnapshots_save_errors', { ...CLUSTER, snapshot_config_name: 'hourly' }));
    expect(await errors()).toBe(0);
    await admin('snapshots/hourly', { failing: true, attempts: 3 });
    expect(await errors()).toBe(3);
    await admin('snapshots/hourly', { failing: false });
    expect(await errors()).toBe(3);
  });

  it('starts the counters again when a killed node comes back', async () => {
    await admin('nodes/node-3', { audit: 'error' });
    await replicationStatus('node-3');
    expect((await scrape('node-3')).get(series('vault_audit_log_request_failure', CLUSTER))).toBeGreaterThan(0);
    await admin('nodes/node-3', { dead: true });
    await admin('nodes/node-3', { dead: false, audit: 'ok' });
    expect((await scrape('node-3')).get(series('vault_audit_log_request_failure', CLUSTER))).toBe(0);
  });
});
