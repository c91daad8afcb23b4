import { dashboard, type DashboardSettings } from './common.js';
import { secretsNodesRow } from './secrets-nodes.js';
import { secretsSnapshotsRow } from './secrets-snapshots.js';

const T = 'target=~"$target"';

export function secretsDashboard(settings: DashboardSettings) {
  const overview = dashboard(
    'secrets',
    'Replication of the secrets service as vigil polls it: roles, connections, heartbeats, WAL lag and merkle corruption; and each cluster’s nodes: role, seal, version, raft failure tolerance, active node changes and licence.',
    'secrets_replication_up',
    settings,
  )
    .row('Overview')
    .stat({
      title: 'Status polls up',
      description: 'Share of (target, kind) status polls that succeeded last time (secrets_replication_up).',
      unit: 'percentunit',
      queries: [{ expr: `avg(secrets_replication_up{${T}})` }],
    })
    .stat({
      title: 'Disconnected secondaries',
      description: 'Known secondaries not connected to their primary.',
      unit: 'short',
      queries: [{ expr: `count(secrets_replication_secondary_connected{${T}} == 0) or vector(0)` }],
    })
    .stat({
      title: 'Max WAL lag',
      description: 'Largest WAL lag between a configured primary and secondary, in WAL entries.',
      unit: 'short',
      queries: [{ expr: `max(secrets_replication_wal_lag_entries{primary=~"$target"}) or vector(0)` }],
    })
    .stat({
      title: 'Corrupted merkle trees',
      description: 'Clusters whose status reports a corrupted merkle tree.',
      unit: 'short',
      queries: [{ expr: `sum(secrets_replication_merkle_tree_corrupted{${T}}) or vector(0)` }],
    })
    .table({
      title: 'Mode per cluster',
      description: 'Current replication mode per cluster and kind (the state-set series that is 1).',
      unit: 'none',
      queries: [{ expr: `secrets_replication_mode{${T}} == 1` }],
    })
    .table({
      title: 'State per cluster',
      description: 'Current replication state per cluster and kind; a secondary should be in stream-wals.',
      unit: 'none',
      queries: [{ expr: `secrets_replication_state{${T}} == 1` }],
    })
    .row('Replication sets')
    .timeseries({
      title: 'Primaries per replication set',
      description: 'Configured clusters reporting themselves primary in each replication set; SecretsReplicationSplitBrain pages above 1.',
      unit: 'short',
      queries: [{ expr: 'secrets_replication_set_primaries', legend: '{{replication_set}} ({{kind}})' }],
    })
    .table({
      title: 'Replication set members',
      description: 'Which configured cluster belongs to which replication set, and its mode.',
      unit: 'none',
      queries: [{ expr: `secrets_replication_set_member_info{${T}}` }],
    })
    .timeseries({
      title: 'Secondaries following a watched primary',
      description: "1 while a secondary's set holds a watched primary; 0 means it follows a primary vigil does not watch.",
      unit: 'bool',
      queries: [{ expr: `secrets_replication_secondary_primary_watched{${T}}`, legend: '{{target}} ({{kind}})' }],
    })
    .timeseries({
      title: 'Primary changes',
      description: "Changes of a secondary's assigned primary over the dashboard's time range.",
      unit: 'short',
      queries: [{ expr: `increase(secrets_replication_primary_changes_total{${T}}[$__range])`, legend: '{{target}} ({{kind}})' }],
    })
    .row('Keys and seal')
    .timeseries({
      title: 'Sealed',
      description: '1 while a cluster answers 503 "sealed" (SecretsSealed pages after 1m); absent when vigil cannot tell.',
      unit: 'bool',
      queries: [{ expr: `secrets_sealed{${T}}`, legend: '{{target}}' }],
    })
    .timeseries({
      title: 'DR operation token attempts',
      description:
        'Open DR operation token generation attempts on DR secondaries, with key shares supplied and required; SecretsDROperationTokenAttemptOpen warns while one is open.',
      unit: 'short',
      queries: [
        { expr: `secrets_dr_operation_token_attempt_started{${T}}`, legend: '{{target}} open' },
        { expr: `secrets_dr_operation_token_attempt_progress{${T}}`, legend: '{{target}} shares supplied' },
        { expr: `secrets_dr_operation_token_attempt_required{${T}}`, legend: '{{target}} shares required' },
      ],
    })
    .timeseries({
      title: 'Open attempt age',
      description:
        'How long the open DR operation token attempt has been open since vigil first saw it; SecretsDROperationTokenAttemptOpenLong pages above 30m.',
      unit: 's',
      mayBeEmpty: true,
      queries: [{ expr: `time() - secrets_dr_operation_token_attempt_first_seen_timestamp_seconds{${T}}`, legend: '{{target}}' }],
    });
  return secretsSnapshotsRow(secretsNodesRow(overview))
    .row('Connections')
    .timeseries({
      title: 'Connected secondaries',
      description:
        '1 while a known secondary is connected to its primary, 0 when it is not; absent when the primary does not report connections (before 1.5: secrets_replication_secondaries_reported is 0).',
      unit: 'bool',
      queries: [{ expr: `secrets_replication_secondary_connected{${T}}`, legend: '{{target}} → {{secondary_id}} ({{kind}})' }],
    })
    .timeseries({
      title: "Secondaries' view of their primary",
      description: '1 while a secondary reports its primary connected.',
      unit: 'bool',
      queries: [{ expr: `secrets_replication_primary_connected{${T}}`, legend: '{{target}} ← {{primary_cluster_address}} ({{kind}})' }],
    })
    .timeseries({
      title: 'Heartbeat age',
      description: 'Seconds since each side last heard the other; SecretsReplicationHeartbeatStale fires above 30 s.',
      unit: 's',
      queries: [
        { expr: `time() - secrets_replication_secondary_last_heartbeat_timestamp_seconds{${T}}`, legend: '{{target}} heard {{secondary_id}}' },
        { expr: `time() - secrets_replication_primary_last_heartbeat_timestamp_seconds{${T}}`, legend: '{{target}} heard primary' },
      ],
    })
    .timeseries({
      title: 'Replication delay (canary age)',
      description:
        "Age of the newest replication canary a secondary has applied, as its primary and as the secondary itself report it: the service's own measure of replication delay. Absent before the servers send it.",
      unit: 's',
      mayBeEmpty: true,
      queries: [
        { expr: `secrets_replication_secondary_primary_canary_age_seconds{${T}}`, legend: '{{target}} → {{secondary_id}} ({{kind}})' },
        { expr: `secrets_replication_primary_canary_age_seconds{${T}}`, legend: '{{target}} ← {{primary_cluster_address}} ({{kind}})' },
      ],
    })
    .timeseries({
      title: 'Clock skew and heartbeat round trip',
      description: 'Clock skew between a primary and each secondary, and how long the last heartbeat took. Absent before the servers send them.',
      unit: 's',
      mayBeEmpty: true,
      queries: [
        { expr: `secrets_replication_secondary_clock_skew_seconds{${T}}`, legend: '{{target}} → {{secondary_id}} skew ({{kind}})' },
        { expr: `secrets_replication_secondary_last_heartbeat_duration_seconds{${T}}`, legend: '{{target}} → {{secondary_id}} heartbeat ({{kind}})' },
      ],
    })
    .timeseries({
      title: 'gRPC connection state',
      description:
        'The replication connection state that is current (ready is healthy; transient_failure and connecting are not), as primaries report it per secondary and secondaries report it for their primary. Absent before the servers send it.',
      unit: 'bool',
      mayBeEmpty: true,
      queries: [
        { expr: `secrets_replication_secondary_connection_state{${T}} == 1`, legend: '{{target}} → {{secondary_id}} {{state}} ({{kind}})' },
        { expr: `secrets_replication_connection_state{${T}} == 1`, legend: '{{target}} {{state}} ({{kind}})' },
      ],
    })
    .row('Write-ahead log')
    .timeseries({
      title: 'WAL lag',
      description: 'WAL entries a configured secondary is behind its configured primary; SecretsReplicationWALLagHigh fires above 1000 for 10m.',
      unit: 'short',
      queries: [{ expr: `secrets_replication_wal_lag_entries{primary=~"$target"}`, legend: '{{primary}} → {{secondary}} ({{kind}})' }],
    })
    .timeseries({
      title: 'WAL write rate',
      description: 'WAL entries per second on each primary.',
      unit: 'ops',
      queries: [{ expr: `rate(secrets_replication_last_wal{${T}}[$__rate_interval])`, legend: '{{target}} ({{kind}})' }],
    })
    .row('Merkle trees')
    .timeseries({
      title: 'Corruption flags',
      description: 'Corrupted merkle tree in the replication status, and corrupted root from the merkle check.',
      unit: 'bool',
      queries: [
        { expr: `secrets_replication_merkle_tree_corrupted{${T}}`, legend: '{{target}} status ({{kind}})' },
        { expr: `secrets_merkle_corrupted_root{${T}}`, legend: '{{target}} merkle-check root' },
      ],
    })
    .timeseries({
      title: 'Corrupted trees, pages and subpages',
      description: 'Trees with a corrupted subtree root, page or subpage, and corrupted pages and subpages per tree, from the merkle check.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [
        { expr: `secrets_merkle_corrupted_trees{${T}} > 0`, legend: '{{target}} {{tree_type}} trees' },
        { expr: `secrets_merkle_corrupted_pages{${T}} > 0`, legend: '{{target}} tree {{tree}} pages' },
        { expr: `secrets_merkle_corrupted_subpages{${T}} > 0`, legend: '{{target}} tree {{tree}} subpages' },
      ],
    })
    .timeseries({
      title: 'Time since the last corruption check',
      description: 'Seconds since the cluster last checked its merkle tree.',
      unit: 's',
      mayBeEmpty: true,
      queries: [{ expr: `time() - secrets_replication_last_corruption_check_timestamp_seconds{${T}}`, legend: '{{target}} ({{kind}})' }],
    })
    .timeseries({
      title: 'Time since the last reindex',
      description: 'Seconds since the cluster last reindexed its merkle tree; absent when it never has or does not say.',
      unit: 's',
      mayBeEmpty: true,
      queries: [{ expr: `time() - secrets_replication_last_reindex_timestamp_seconds{${T}}`, legend: '{{target}} ({{kind}})' }],
    });
}
