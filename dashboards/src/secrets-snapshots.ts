import type { VigilDashboard } from './common.js';

const T = 'target=~"$target"';

/** The row of each secrets cluster's automated raft snapshots: how old the last backup is, and whether the attempts fail. */
export function secretsSnapshotsRow(d: VigilDashboard): VigilDashboard {
  return d
    .row('Automated snapshots')
    .timeseries({
      title: 'Time since the last successful snapshot',
      description:
        'Per cluster and configuration, the age of the freshest successful automated snapshot (secrets_raft_snapshot_last_success_timestamp_seconds); SecretsSnapshotStale warns above 25h. Empty for targets without a snapshots block, and where automated snapshots do not apply.',
      unit: 's',
      mayBeEmpty: true,
      queries: [{ expr: `time() - max by (target, name) (secrets_raft_snapshot_last_success_timestamp_seconds{${T}})`, legend: '{{target}} {{name}}' }],
    })
    .timeseries({
      title: 'Snapshot attempts failed in a row',
      description: 'consecutive_errors of each configuration; SecretsSnapshotFailing pages at 3.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [{ expr: `max by (target, name) (secrets_raft_snapshot_consecutive_errors{${T}})`, legend: '{{target}} {{name}}' }],
    })
    .table({
      title: 'Last snapshot error',
      description: 'The last error of each configuration whose attempts fail (at most 128 characters of it); empty while they succeed.',
      unit: 'none',
      mayBeEmpty: true,
      queries: [{ expr: `max by (target, name, error) (secrets_raft_snapshot_last_error_info{${T}})` }],
    });
}
