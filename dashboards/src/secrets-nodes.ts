import type { VigilDashboard } from './common.js';

const T = 'target=~"$target"';

/** The row of each secrets cluster's nodes: what each node answers, the active node, raft autopilot and the licence. */
export function secretsNodesRow(d: VigilDashboard): VigilDashboard {
  return d
    .row('Nodes')
    .stat({
      title: 'Nodes polled',
      description: 'Nodes vigil found from the clusters’ addresses and polls directly (secrets_nodes_discovered).',
      unit: 'short',
      queries: [{ expr: `sum(secrets_nodes_discovered{${T}})` }],
    })
    .stat({
      title: 'Nodes not answering',
      description: 'Nodes that did not answer their last sys/health poll; SecretsNodeUnreachable warns after 10m.',
      unit: 'short',
      queries: [{ expr: `count(secrets_node_up{${T}} == 0) or vector(0)` }],
    })
    .stat({
      title: 'Sealed nodes',
      description: 'Nodes that answer sealed; SecretsNodeSealed warns after 5m (a sealed standby is one failover less).',
      unit: 'short',
      queries: [{ expr: `count(secrets_node_sealed{${T}} == 1) or vector(0)` }],
    })
    .stat({
      title: 'Blocked by audit devices',
      description:
        'Clusters and nodes whose audited requests hang or fail while sys/health answers (secrets_requests_blocked at the configured address, secrets_node_requests_blocked at each node the token goes to); SecretsRequestsBlocked pages after 2m. Empty where the check does not run (no token_file, nodes.audit_check.enabled false).',
      unit: 'short',
      mayBeEmpty: true,
      queries: [
        { expr: `count(secrets_requests_blocked{${T}} == 1 or secrets_node_requests_blocked{${T}} == 1) or (count(secrets_requests_blocked{${T}}) * 0)` },
      ],
    })
    .stat({
      title: 'Lowest raft failure tolerance',
      description:
        'The lowest failure tolerance raft autopilot reports among the clusters shown; SecretsRaftFailureToleranceLost pages at 0 with several voters. Empty without integrated storage.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [{ expr: `min(secrets_raft_failure_tolerance{${T}})` }],
    })
    .table({
      title: 'Role per node',
      description:
        'What each node answers it is: active, standby, performance standby, DR secondary or removed (the state-set series that is 1). `node` is the name the cluster reports (its raft node ID, as the raft panels name it), `address` the API address vigil polls.',
      unit: 'none',
      queries: [{ expr: `secrets_node_role{${T}} == 1` }],
    })
    .table({
      title: 'Version per node',
      description: 'The version and cluster name each node reports; SecretsNodeVersionSkew warns when they differ for 2h.',
      unit: 'none',
      queries: [{ expr: `secrets_node_info{${T}}` }],
    })
    .timeseries({
      title: 'Node health',
      description: '1 while a node answers sys/health (up), is sealed, is initialized; a sealed node still answers.',
      unit: 'bool',
      queries: [
        { expr: `secrets_node_up{${T}}`, legend: '{{target}} {{node}} ({{address}}) up' },
        { expr: `secrets_node_sealed{${T}}`, legend: '{{target}} {{node}} ({{address}}) sealed' },
        { expr: `secrets_node_initialized{${T}}`, legend: '{{target}} {{node}} ({{address}}) initialized' },
      ],
    })
    .timeseries({
      title: 'Seal backends healthy',
      description:
        '1 while a node reports a seal backend healthy (sys/seal-backend-status); SecretsSealBackendUnhealthy warns after 10m at 0, SecretsSealBackendsUnhealthy pages when every backend of a node is 0. A server without Seal HA shows its one backend.',
      unit: 'bool',
      mayBeEmpty: true,
      queries: [{ expr: `secrets_node_seal_backend_healthy{${T}}`, legend: '{{target}} {{node}} {{backend}}' }],
    })
    .table({
      title: 'Unseal in progress',
      description:
        'Key shares entered into an unseal of a sealed node, of those it needs (sys/seal-status); a node left partway waits for its key holders. Empty while no unseal is in progress.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [{ expr: `secrets_node_unseal_progress{${T}} > 0`, legend: '{{target}} {{node}}' }],
    })
    .timeseries({
      title: 'Raft failure tolerance and voters',
      description:
        'Voters a cluster can lose and keep quorum (and the optimistic tolerance, counting non-voters that could be promoted), and its voters; SecretsRaftFailureToleranceLow warns below what its voters give. Absent without integrated storage.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [
        { expr: `secrets_raft_failure_tolerance{${T}}`, legend: '{{target}} tolerance' },
        { expr: `secrets_raft_optimistic_failure_tolerance{${T}}`, legend: '{{target}} optimistic' },
        { expr: `secrets_raft_voters{${T}}`, legend: '{{target}} voters' },
      ],
    })
    .timeseries({
      title: 'Raft servers healthy',
      description: '1 while raft autopilot reports a server healthy; SecretsRaftServerUnhealthy warns after 5m at 0.',
      unit: 'bool',
      mayBeEmpty: true,
      // `server` is the raft node ID: the name the node panels give the node.
      queries: [{ expr: `secrets_raft_server_healthy{${T}}`, legend: '{{target}} {{server}}' }],
    })
    .table({
      title: 'Active node',
      description: 'The node each cluster reports active (HA status or sys/leader), by its name and its API address; a cluster without one is missing here.',
      unit: 'none',
      queries: [{ expr: `secrets_active_node_info{${T}}` }],
    })
    .timeseries({
      title: 'Active node changes',
      description: "Changes of a cluster's active node over the dashboard's time range; SecretsLeadershipChurn warns above 3 within an hour.",
      unit: 'short',
      queries: [{ expr: `increase(secrets_active_node_changes_total{${T}}[$__range])`, legend: '{{target}}' }],
    })
    .timeseries({
      title: 'Licence expires in',
      description:
        'Time left on the licence each node reports; SecretsLicenseExpiringSoon warns within 30 days, SecretsLicenseExpiryCritical pages within 7. Absent when no licence is reported.',
      unit: 's',
      mayBeEmpty: true,
      queries: [{ expr: `secrets_license_expiry_timestamp_seconds{${T}} - time()`, legend: '{{target}} {{node}}' }],
    });
}
