import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { secretsCollector } from '../../src/collectors/secrets/collector.js';
import { replicationPlan } from '../../src/collectors/secrets/plans.js';
import type { Plan } from '../../src/collectors/plan.js';
import { callsPerRun } from '../helpers/plans.js';
import { series, seriesOf } from '../helpers/exposition.js';
import { waitFor } from '../helpers/wait.js';

/**
 * vigil against the secrets-service simulator over loopback: one fault at a time, the expected series
 * appear, change or disappear, and the other targets keep working.
 */
let sim: SecretsSimulator;
let vigil: TestDaemon;
let drToken: string;

const admin = async (cluster: string, path: string, body?: unknown, method = 'POST') => {
  const res = await fetch(`${sim.cluster(cluster).url}/_sim/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
};

function config(): string {
  const t = (name: string, extra = '') => `  - name: ${name}\n    address: ${sim.cluster(name).url}\n    timeout: 500ms\n    schedule: "${NEVER}"\n${extra}`;
  return `secrets:\n${t('dr-primary')}${t('dr-secondary', `    merkle_check: { dr_operation_token_file: ${tempFile('dr-op', drToken)}, schedule: "${NEVER}" }\n`)}${t('perf-primary')}${t('perf-secondary')}`;
}

/** The parts of one replication run of a target of this config (one per kind): what fails when the cluster does. */
const partsPerRun = () => callsPerRun(replicationPlan as Plan, secretsCollector.target.parse({ name: 'x', address: 'http://127.0.0.1:1' }));
const up = (target: string, kind: string) => series('secrets_replication_up', { target, kind });
const failures = (m: Map<string, number>, target: string, reason: string) =>
  m.get(series('vigil_collector_failures_total', { collector: 'secrets_replication', target, reason })) ?? NaN;

beforeAll(async () => {
  sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
  drToken = sim.cluster('dr-secondary').drOperationToken();
  vigil = await startTestDaemon(config());
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});
beforeEach(async () => {
  for (const c of ['dr-primary', 'dr-secondary', 'perf-primary', 'perf-secondary']) await admin(c, 'faults', undefined, 'DELETE');
});

describe('a healthy fleet', () => {
  it('reports every target and kind up, with roles and connections', async () => {
    const m = await vigil.metrics();
    for (const t of ['dr-primary', 'dr-secondary', 'perf-primary', 'perf-secondary']) {
      expect(m.get(up(t, 'dr'))).toBe(1);
      expect(m.get(up(t, 'performance'))).toBe(1);
    }
    expect(m.get(series('secrets_replication_mode', { target: 'dr-primary', kind: 'dr', mode: 'primary' }))).toBe(1);
    expect(m.get(series('secrets_replication_mode', { target: 'dr-primary', kind: 'performance', mode: 'disabled' }))).toBe(1);
    expect(m.get(series('secrets_replication_mode', { target: 'dr-secondary', kind: 'dr', mode: 'secondary' }))).toBe(1);
    expect(m.get(series('secrets_replication_secondary_connected', { target: 'dr-primary', kind: 'dr', secondary_id: 'dr-secondary' }))).toBe(1);
    expect(m.get(series('secrets_replication_state', { target: 'dr-secondary', kind: 'dr', state: 'stream-wals' }))).toBe(1);
    expect(m.get(series('secrets_replication_wal_lag_entries', { kind: 'dr', primary: 'dr-primary', secondary: 'dr-secondary' }))).toBe(0);
    expect(m.get(series('secrets_replication_wal_lag_entries', { kind: 'performance', primary: 'perf-primary', secondary: 'perf-secondary' }))).toBe(0);
    expect(m.get(series('secrets_merkle_check_up', { target: 'dr-secondary' }))).toBe(1);
    expect(m.get(series('vigil_collector_up', { collector: 'secrets_replication', target: 'dr-primary' }))).toBe(1);
  });

  it('is ready', async () => {
    const res = await fetch(`${vigil.url}/readyz`);
    expect(res.status).toBe(200);
  });
});

describe('a secondary disconnects', () => {
  it('flips its connected series on both sides, then back', async () => {
    await admin('dr-primary', 'replication/dr/secondaries/dr-secondary/disconnect', {});
    await vigil.collect();
    let m = await vigil.metrics();
    expect(m.get(series('secrets_replication_secondary_connected', { target: 'dr-primary', kind: 'dr', secondary_id: 'dr-secondary' }))).toBe(0);
    const fromSecondary = seriesOf(m, 'secrets_replication_primary_connected');
    expect([...fromSecondary].filter(([k]) => k.includes('target="dr-secondary"')).map(([, v]) => v)).toEqual([0]);
    await admin('dr-primary', 'replication/dr/secondaries/dr-secondary/connect', {});
    await vigil.collect();
    m = await vigil.metrics();
    expect(m.get(series('secrets_replication_secondary_connected', { target: 'dr-primary', kind: 'dr', secondary_id: 'dr-secondary' }))).toBe(1);
  });
});

describe('a heartbeat stops', () => {
  it('freezes the heartbeat timestamp while time goes on', async () => {
    const hb = series('secrets_replication_secondary_last_heartbeat_timestamp_seconds', {
      target: 'perf-primary',
      kind: 'performance',
      secondary_id: 'perf-secondary',
    });
    await admin('perf-primary', 'replication/performance/secondaries/perf-secondary/heartbeat', { stopped: true });
    await vigil.collect();
    const frozen = (await vigil.metrics()).get(hb)!;
    // Time has gone on for the simulator once a live link's heartbeat is newer than the frozen one.
    const live = series('secrets_replication_secondary_last_heartbeat_timestamp_seconds', { target: 'dr-primary', kind: 'dr', secondary_id: 'dr-secondary' });
    const m = await waitFor('a live heartbeat newer than the stopped one', async () => {
      await vigil.collect();
      const now = await vigil.metrics();
      return now.get(live)! > frozen ? now : undefined;
    });
    expect(m.get(hb)).toBe(frozen);
    await admin('perf-primary', 'replication/performance/secondaries/perf-secondary/heartbeat', { stopped: false });
    await vigil.collect();
    expect((await vigil.metrics()).get(hb)!).toBeGreaterThan(frozen);
  });
});

describe('the WAL lags', () => {
  it('reports primary last_wal minus secondary last_remote_wal, then 0 once it follows', async () => {
    const lag = series('secrets_replication_wal_lag_entries', { kind: 'dr', primary: 'dr-primary', secondary: 'dr-secondary' });
    await admin('dr-primary', 'replication/dr/wal/advance', { by: 25, secondaries_follow: false });
    await vigil.collect();
    expect((await vigil.metrics()).get(lag)).toBe(25);
    await admin('dr-primary', 'replication/dr/wal/follow', {});
    await vigil.collect();
    expect((await vigil.metrics()).get(lag)).toBe(0);
  });
});

describe('a merkle tree is corrupted', () => {
  it('shows in the status and in the merkle-check report', async () => {
    await admin('dr-secondary', 'replication/dr/merkle/corrupt', { tree: '3', tree_type: 'replicated', pages: { '17': [1, 2], '18': [] }, root: true });
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(series('secrets_replication_merkle_tree_corrupted', { target: 'dr-secondary', kind: 'dr' }))).toBe(1);
    expect(m.get(series('secrets_merkle_corrupted_root', { target: 'dr-secondary' }))).toBe(1);
    expect(m.get(series('secrets_merkle_corrupted_trees', { target: 'dr-secondary', tree_type: 'replicated' }))).toBe(1);
    expect(m.get(series('secrets_merkle_corrupted_pages', { target: 'dr-secondary', tree: '3', tree_type: 'replicated' }))).toBe(2);
    expect(m.get(series('secrets_replication_last_corruption_check_timestamp_seconds', { target: 'dr-secondary', kind: 'dr' }))).toBeGreaterThan(
      Date.now() / 1000 - 60,
    );
    await admin('dr-secondary', 'replication/dr/merkle/corrupt', undefined, 'DELETE');
    await vigil.collect();
    expect((await vigil.metrics()).get(series('secrets_merkle_corrupted_root', { target: 'dr-secondary' }))).toBe(0);
  });
});

describe('faults that fail a poll', () => {
  it('a hang past the timeout: up 0 with reason timeout, its data gone, other targets untouched', async () => {
    const before = await vigil.metrics();
    await admin('perf-secondary', 'faults', { hang: true });
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(up('perf-secondary', 'performance'))).toBe(0);
    expect(m.get(up('perf-secondary', 'dr'))).toBe(0);
    expect(failures(m, 'perf-secondary', 'timeout') - failures(before, 'perf-secondary', 'timeout')).toBe(partsPerRun());
    expect([...seriesOf(m, 'secrets_replication_mode').keys()].filter((k) => k.includes('perf-secondary'))).toEqual([]);
    expect(m.has(series('secrets_replication_wal_lag_entries', { kind: 'performance', primary: 'perf-primary', secondary: 'perf-secondary' }))).toBe(false);
    expect(m.get(up('perf-primary', 'performance'))).toBe(1);
    expect(m.get(series('secrets_replication_mode', { target: 'perf-primary', kind: 'performance', mode: 'primary' }))).toBe(1);
    expect(m.get(series('vigil_collector_up', { collector: 'secrets_replication', target: 'perf-secondary' }))).toBe(0);
    const line = vigil.logs().find((l) => l.target === 'perf-secondary' && l.reason === 'timeout');
    expect(line).toMatchObject({ level: 'warn', msg: 'collection failed', collector: 'secrets_replication' });
  });

  it('garbage JSON: reason decode, and the target recovers when the fault clears', async () => {
    const before = await vigil.metrics();
    await admin('dr-primary', 'faults', { garbage: true });
    await vigil.collect();
    let m = await vigil.metrics();
    expect(m.get(up('dr-primary', 'dr'))).toBe(0);
    expect(failures(m, 'dr-primary', 'decode') - failures(before, 'dr-primary', 'decode')).toBe(partsPerRun());
    expect(m.get(up('dr-secondary', 'dr'))).toBe(1);
    await admin('dr-primary', 'faults', undefined, 'DELETE');
    await vigil.collect();
    m = await vigil.metrics();
    expect(m.get(up('dr-primary', 'dr'))).toBe(1);
    expect(m.get(series('secrets_replication_secondary_connected', { target: 'dr-primary', kind: 'dr', secondary_id: 'dr-secondary' }))).toBe(1);
  });

  it('412 twice then success: retried with backoff, up stays 1, retries counted', async () => {
    const retries = (m: Map<string, number>) =>
      [...seriesOf(m, 'vigil_upstream_retries_total')].filter(([k]) => k.includes('target="perf-primary"')).reduce((a, [, v]) => a + v, 0);
    const before = retries(await vigil.metrics());
    await admin('perf-primary', 'faults', { status: { code: 412, times: 2, body: { errors: ['eventually consistent data is missing'] } } });
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(up('perf-primary', 'performance'))).toBe(1);
    expect(m.get(up('perf-primary', 'dr'))).toBe(1);
    expect(retries(m) - before).toBe(2);
    expect(
      m.get(series('vigil_upstream_request_duration_seconds_count', { target: 'perf-primary', endpoint: 'secrets/replication-status', code: '412' })),
    ).toBeGreaterThanOrEqual(2);
  });

  it('503 sealed: its own reason, sealed, with the service error in the log', async () => {
    const before = await vigil.metrics();
    await admin('dr-secondary', 'seal', { sealed: true });
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(up('dr-secondary', 'dr'))).toBe(0);
    expect(failures(m, 'dr-secondary', 'sealed') - failures(before, 'dr-secondary', 'sealed')).toBe(partsPerRun());
    expect(failures(m, 'dr-secondary', 'http_5xx') - failures(before, 'dr-secondary', 'http_5xx')).toBe(0);
    expect(m.get(series('secrets_merkle_check_up', { target: 'dr-secondary' }))).toBe(0);
    const line = vigil.logs().findLast((l) => l.target === 'dr-secondary' && l.reason === 'sealed');
    expect(String(line?.err)).toMatch(/HTTP 503: .*sealed/);
    await admin('dr-secondary', 'seal', { sealed: false });
    await vigil.collect();
    expect((await vigil.metrics()).get(up('dr-secondary', 'dr'))).toBe(1);
  });
});

describe('secrets stay secret', () => {
  it('never writes the DR operation token to a log line or a label', async () => {
    const all = JSON.stringify(vigil.logs()) + (await vigil.scrape());
    expect(all).not.toContain(drToken);
  });
});

describe('reload', () => {
  it('drops every series of a removed target and keeps the others', async () => {
    const t = (name: string) => `  - name: ${name}\n    address: ${sim.cluster(name).url}\n    schedule: "${NEVER}"\n`;
    await vigil.reload(`secrets:\n${t('dr-primary')}${t('dr-secondary')}`);
    await vigil.collect();
    const text = await vigil.scrape();
    expect(text).not.toContain('target="perf-primary"');
    expect(text).not.toContain('secondary="perf-secondary"');
    expect(text).toContain('secrets_replication_up{target="dr-primary",kind="dr"} 1');
    expect(text).not.toMatch(/secrets_merkle_check_up/);
  });
});
