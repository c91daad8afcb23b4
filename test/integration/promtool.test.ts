import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { promtoolCheckMetrics } from '../helpers/tools.js';

/** `promtool check metrics` on vigil's full /metrics: every family, runtime metrics included. */
let sim: SecretsSimulator;
let vigil: TestDaemon;

beforeAll(async () => {
  sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
  const token = tempFile('dr-op', sim.cluster('dr-secondary').drOperationToken());
  const targets = ['dr-primary', 'dr-secondary', 'perf-primary', 'perf-secondary']
    .map(
      (n) =>
        `  - name: ${n}\n    address: ${sim.cluster(n).url}\n    schedule: "${NEVER}"\n${n === 'dr-secondary' ? `    merkle_check: { dr_operation_token_file: ${token}, schedule: "${NEVER}" }\n` : ''}`,
    )
    .join('');
  vigil = await startTestDaemon(`secrets:\n${targets}  - name: down\n    address: http://127.0.0.1:1\n    schedule: "${NEVER}"\n`);
  await fetch(`${sim.cluster('dr-secondary').url}/_sim/replication/dr/merkle/corrupt`, {
    method: 'POST',
    body: JSON.stringify({ tree: '1', tree_type: 'local', pages: { '2': [] } }),
  });
  await vigil.collect();
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});

describe('promtool check metrics', () => {
  it('passes on the live /metrics output', async () => {
    const text = await vigil.scrape();
    // The output covers what it claims to: data, failures, histograms and runtime metrics.
    for (const name of [
      'secrets_replication_wal_lag_entries',
      'secrets_merkle_corrupted_pages',
      'vigil_upstream_request_duration_seconds_bucket',
      'process_cpu_seconds_total',
      'vigil_build_info',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).toContain('secrets_replication_up{target="down",kind="dr"} 0');
    const r = promtoolCheckMetrics(text);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it('can fail: it rejects a gauge named like a counter', () => {
    const r = promtoolCheckMetrics('# HELP x_total x\n# TYPE x_total gauge\nx_total 1\n');
    expect(r.status).not.toBe(0);
  });
});
