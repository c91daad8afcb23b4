import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { SNAPSHOT_ERROR } from '../../simulators/secrets/snapshots.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { parseExposition } from '../helpers/exposition.js';
import { NEVER } from '../helpers/schedules.js';

/**
 * vigil polling the automated snapshots of simulated clusters: one with two configurations (named,
 * and found by listing with a sudo token), the same cluster through a token that may not list (the
 * named one stands), a community cluster and one without integrated storage (not applicable: no
 * series, no failure). Then the attempts fail, and succeed again.
 */
let secrets: SecretsSimulator;
let d: TestDaemon;

const post = async (path: string, body: object): Promise<void> => {
  const res = await fetch(`${secrets.cluster('backed').url}/_sim/${path}`, { method: 'POST', body: JSON.stringify(body) });
  expect(res.status, await res.text()).toBe(200);
};
const series = async () => parseExposition(await (await d.collect(), d.scrape()));

beforeAll(async () => {
  secrets = await startSecretsSimulator(
    {
      clusters: [
        { name: 'backed', nodes: 1, snapshots: [{ name: 'daily', intervalSeconds: 86_400 }, { name: 'hourly' }] },
        { name: 'community', nodes: 1, snapshotSupport: 'community', snapshots: [{ name: 'daily' }] },
        { name: 'no-raft', nodes: 1, snapshotSupport: 'no-raft', snapshots: [{ name: 'daily' }] },
      ],
    },
    { walTickMs: 3_600_000 },
  );
  const res = await fetch(`${secrets.cluster('backed').url}/_sim/tokens`, { method: 'POST', body: JSON.stringify({}) });
  const reader = ((await res.json()) as { token: string }).token;
  const target = (name: string, cluster: string, token: string, snapshots: string) =>
    `  - { name: ${name}, address: "${secrets.cluster(cluster).url}", token_file: "${tempFile('token', token)}", schedule: "${NEVER}", replication_kinds: [dr], nodes: { enabled: false }, snapshots: ${snapshots} }\n`;
  const root = (c: string) => secrets.cluster(c).rootToken;
  d = await startTestDaemon(
    'secrets:\n' +
      target('backed', 'backed', root('backed'), `{ names: [daily], list: true, schedule: "${NEVER}" }`) +
      target('reader', 'backed', reader, `{ names: [daily], list: true, schedule: "${NEVER}" }`) +
      target('community', 'community', root('community'), `{ names: [daily], schedule: "${NEVER}" }`) +
      target('no-raft', 'no-raft', root('no-raft'), `{ names: [daily], schedule: "${NEVER}" }`),
  );
});
afterAll(async () => {
  await d?.close();
  await secrets?.close();
});

describe('automated snapshots', () => {
  it('are polled by name and by listing: last success, no errors, the next start', async () => {
    const s = await series();
    for (const name of ['daily', 'hourly']) {
      expect(s.get(`secrets_raft_snapshot_up{name="${name}",target="backed"}`)).toBe(1);
      expect(s.get(`secrets_raft_snapshot_consecutive_errors{name="${name}",target="backed"}`)).toBe(0);
      expect(Date.now() / 1000 - (s.get(`secrets_raft_snapshot_last_success_timestamp_seconds{name="${name}",target="backed"}`) ?? 0)).toBeLessThan(120);
      expect(s.get(`secrets_raft_snapshot_next_start_timestamp_seconds{name="${name}",target="backed"}`)).toBeGreaterThan(Date.now() / 1000);
    }
    expect(s.get('secrets_raft_snapshot_series_dropped{target="backed"}')).toBe(0);
    expect([...s.keys()].filter((k) => k.startsWith('secrets_raft_snapshot_last_error_info'))).toEqual([]);
  });

  it('keep the named configurations where the token may not list them, without failing', async () => {
    const s = await series();
    expect(s.get('secrets_raft_snapshot_up{name="daily",target="reader"}')).toBe(1);
    expect(s.has('secrets_raft_snapshot_up{name="hourly",target="reader"}')).toBe(false);
    expect(s.get('vigil_collector_up{collector="secrets_snapshots",target="reader"}')).toBe(1);
  });

  it('do not apply to a community cluster or one without integrated storage: no series, no failure', async () => {
    const s = await series();
    for (const t of ['community', 'no-raft']) {
      expect([...s.keys()].filter((k) => k.startsWith('secrets_raft_snapshot_') && k.includes(`target="${t}"`) && !k.includes('series_dropped'))).toEqual([]);
      expect(s.get(`vigil_collector_up{collector="secrets_snapshots",target="${t}"}`)).toBe(1);
    }
  });

  it('say the errors while the attempts fail, keeping the last success seen, and forget them once one succeeds', async () => {
    const before = (await series()).get('secrets_raft_snapshot_last_success_timestamp_seconds{name="daily",target="backed"}');
    await post('snapshots/daily', { failing: true, attempts: 3 });
    let s = await series();
    expect(s.get('secrets_raft_snapshot_consecutive_errors{name="daily",target="backed"}')).toBe(3);
    expect(s.get('secrets_raft_snapshot_last_success_timestamp_seconds{name="daily",target="backed"}')).toBe(before);
    const info = [...s.keys()].filter(
      (k) => k.startsWith('secrets_raft_snapshot_last_error_info{') && k.includes('name="daily"') && k.includes('target="backed"'),
    );
    expect(info).toHaveLength(1);
    expect(info[0]).toContain(SNAPSHOT_ERROR.slice(0, 60));
    await post('snapshots/daily', { failing: false });
    s = await series();
    expect(s.get('secrets_raft_snapshot_consecutive_errors{name="daily",target="backed"}')).toBe(0);
    expect(s.get('secrets_raft_snapshot_last_success_timestamp_seconds{name="daily",target="backed"}')).toBeGreaterThan(before ?? Infinity);
    expect([...s.keys()].filter((k) => k.startsWith('secrets_raft_snapshot_last_error_info'))).toEqual([]);
  });

  it('leave the last success where it was while stalled', async () => {
    await post('snapshots/hourly', { stalled: true, stalled_for_seconds: 2 * 86_400 });
    const s = await series();
    const last = s.get('secrets_raft_snapshot_last_success_timestamp_seconds{name="hourly",target="backed"}') ?? 0;
    expect(Date.now() / 1000 - last).toBeGreaterThan(2 * 86_400 - 60);
    expect(s.get('secrets_raft_snapshot_next_start_timestamp_seconds{name="hourly",target="backed"}')).toBeLessThan(Date.now() / 1000);
  });
});
