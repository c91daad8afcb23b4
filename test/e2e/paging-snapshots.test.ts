import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startAlertingStack, type AlertingStack } from '../helpers/alerting-stack.js';
import { tempFile } from '../helpers/daemon.js';
import { notified } from '../helpers/stand-in-receiver.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Automated raft snapshots end to end, as paging.test.ts drives its faults: an Enterprise cluster
 * whose hourly snapshot starts failing, one beside it that keeps succeeding, and a community
 * cluster that has no such feature (404), all polled by one vigil with the shipped rules and
 * routing in a real Prometheus and Alertmanager. The failing snapshot pages, once; nothing else does.
 */
let secrets: SecretsSimulator;
let stack: AlertingStack;

beforeAll(async () => {
  const snapshots = [{ name: 'hourly' }, { name: 'daily', intervalSeconds: 86_400 }];
  secrets = await startSecretsSimulator(
    {
      clusters: [
        { name: 'ent', snapshots },
        { name: 'community', snapshots, snapshotSupport: 'community' },
      ],
    },
    { walTickMs: 3_600_000 },
  );
  const token = (c: string) => tempFile(`${c}-token`, secrets.cluster(c).rootToken);
  const common = 'schedule: "*/2 * * * * *", timeout: 1s, replication_kinds: [dr], snapshots: { names: [hourly, daily], schedule: "*/2 * * * * *" }';
  stack = await startAlertingStack(
    'secrets:\n' +
      `  - { name: ent, address: "${secrets.cluster('ent').url}", token_file: ${token('ent')}, ${common} }\n` +
      `  - { name: community, address: "${secrets.cluster('community').url}", token_file: ${token('community')}, ${common} }\n`,
  );
}, 180_000);

afterAll(() => Promise.all([stack?.stop(), secrets?.close()]), 60_000);

describe('automated snapshots', () => {
  it('page SecretsSnapshotFailing for the snapshot that keeps failing, and nothing for the one that succeeds or the community cluster', async () => {
    await waitFor(
      'both snapshots of ent read',
      async () => ((await stack.query('secrets_raft_snapshot_up{target="ent"} == 1')).length === 2 ? true : undefined),
      60_000,
      {
        describeFailure: stack.state,
      },
    );
    // The community cluster has no such feature: no series at all, not a failure.
    expect(await stack.query('count(secrets_raft_snapshot_up{target="community"})')).toEqual([]);
    const res = await fetch(`${secrets.cluster('ent').url}/_sim/snapshots/hourly`, { method: 'POST', body: JSON.stringify({ failing: true, attempts: 3 }) });
    expect(res.status).toBe(200);
    await waitFor(
      'SecretsSnapshotFailing at the pager',
      async () => (notified(stack.pager, 'SecretsSnapshotFailing', { target: 'ent', name: 'hourly' }) ? true : undefined),
      150_000,
      {
        describeFailure: stack.state,
      },
    );
    await new Promise((r) => setTimeout(r, 15_000));
    const paged = new Set(stack.pager.flatMap((p) => p.alerts).map((a) => `${a.labels.alertname} ${a.labels.target ?? ''} ${a.labels.name ?? ''}`));
    expect([...paged]).toEqual(['SecretsSnapshotFailing ent hourly']);
    // Not applicable is no failure: every job of the community cluster is up.
    expect(await stack.query('min(vigil_collector_up{target="community"})')).toEqual(['1']);
    expect(await stack.query('count(vigil_collector_up{target="community",collector="secrets_snapshots"})')).toEqual(['1']);
  }, 330_000);
});
