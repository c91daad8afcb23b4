import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series, seriesOf } from '../helpers/exposition.js';

/**
 * Replication sets through vigil's real collector against the simulator: sets derived from the
 * clusters' answers, two performance primaries after a promotion without a demotion, and a secondary
 * whose primary is not configured.
 */
let sim: SecretsSimulator;
let vigil: TestDaemon;

const api = async (cluster: string, path: string, body: unknown = {}) => {
  const res = await fetch(`${sim.cluster(cluster).url}/v1/sys/replication/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-secrets-token': sim.cluster(cluster).rootToken },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};
const perfSet = (m: Map<string, number>) => [...seriesOf(m, 'secrets_replication_set_primaries')].filter(([k]) => k.includes('kind="performance"'));

beforeAll(async () => {
  sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
  const t = (name: string) => `  - { name: ${name}, address: "${sim.cluster(name).url}", timeout: 500ms, schedule: "${NEVER}" }\n`;
  vigil = await startTestDaemon(`secrets:\n${t('dr-primary')}${t('dr-secondary')}${t('perf-primary')}${t('perf-secondary')}`);
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});

describe('replication sets', () => {
  it('derives one set per pair from the answers, each with one primary', async () => {
    const m = await vigil.metrics();
    const sets = [...seriesOf(m, 'secrets_replication_set_primaries')];
    expect(sets.map(([, v]) => v)).toEqual([1, 1]);
    const members = [...seriesOf(m, 'secrets_replication_set_member_info').keys()];
    expect(
      members
        .filter((k) => k.includes('kind="performance"'))
        .map((k) => /target="([^"]+)"/.exec(k)![1])
        .sort(),
    ).toEqual(['perf-primary', 'perf-secondary']);
    expect(m.get(series('secrets_replication_secondary_primary_watched', { target: 'perf-secondary', kind: 'performance' }))).toBe(1);
    expect(m.get(series('secrets_replication_primary_changes_total', { target: 'perf-secondary', kind: 'performance' }))).toBe(0);
  });

  it('a secondary promoted while its primary stays primary: two primaries in one set, back to one after a demotion', async () => {
    await api('perf-secondary', 'performance/secondary/promote');
    await vigil.collect();
    let m = await vigil.metrics();
    expect(perfSet(m).map(([, v]) => v)).toEqual([2]);
    await api('perf-secondary', 'performance/primary/demote');
    await vigil.collect();
    m = await vigil.metrics();
    expect(perfSet(m).map(([, v]) => v)).toEqual([1]);
  });

  it('a secondary whose primary is not configured is 0', async () => {
    const other = await startTestDaemon(`secrets:\n  - { name: dr-secondary, address: "${sim.cluster('dr-secondary').url}", schedule: "${NEVER}" }\n`);
    try {
      const m = await other.metrics();
      expect(m.get(series('secrets_replication_secondary_primary_watched', { target: 'dr-secondary', kind: 'dr' }))).toBe(0);
    } finally {
      await other.close();
    }
  });
});
