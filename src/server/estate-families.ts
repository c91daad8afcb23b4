import { CATALOG } from '../catalog.js';
import type { Sample } from './exposition.js';

/** The families the status page reads, by name (a table of data); each is checked against the catalog below. */
export const READS = {
  replicationUp: 'secrets_replication_up',
  replicationMode: 'secrets_replication_mode',
  replicationState: 'secrets_replication_state',
  merkleTreeCorrupted: 'secrets_replication_merkle_tree_corrupted',
  secondaryConnected: 'secrets_replication_secondary_connected',
  secondaryHeartbeat: 'secrets_replication_secondary_last_heartbeat_timestamp_seconds',
  primaryConnected: 'secrets_replication_primary_connected',
  primaryHeartbeat: 'secrets_replication_primary_last_heartbeat_timestamp_seconds',
  walLag: 'secrets_replication_wal_lag_entries',
  secondaryTargetInfo: 'secrets_replication_secondary_target_info',
  setPrimaries: 'secrets_replication_set_primaries',
  setMemberInfo: 'secrets_replication_set_member_info',
  sealed: 'secrets_sealed',
  attemptUp: 'secrets_dr_operation_token_attempt_up',
  attemptStarted: 'secrets_dr_operation_token_attempt_started',
  attemptProgress: 'secrets_dr_operation_token_attempt_progress',
  attemptRequired: 'secrets_dr_operation_token_attempt_required',
  merkleCheckUp: 'secrets_merkle_check_up',
  merkleCorruptedRoot: 'secrets_merkle_corrupted_root',
  merkleCorruptedTrees: 'secrets_merkle_corrupted_trees',
  nodesDiscovered: 'secrets_nodes_discovered',
  nodeDiscoveryInfo: 'secrets_node_discovery_info',
  activeNodeInfo: 'secrets_active_node_info',
  nodeUp: 'secrets_node_up',
  nodeInitialized: 'secrets_node_initialized',
  nodeSealed: 'secrets_node_sealed',
  nodeRole: 'secrets_node_role',
  nodeInfo: 'secrets_node_info',
  nodeRequestsBlocked: 'secrets_node_requests_blocked',
  requestsBlocked: 'secrets_requests_blocked',
  snapshotUp: 'secrets_raft_snapshot_up',
  snapshotLastSuccess: 'secrets_raft_snapshot_last_success_timestamp_seconds',
  snapshotConsecutiveErrors: 'secrets_raft_snapshot_consecutive_errors',
  raftAutopilotHealthy: 'secrets_raft_autopilot_healthy',
  raftFailureTolerance: 'secrets_raft_failure_tolerance',
  raftOptimisticFailureTolerance: 'secrets_raft_optimistic_failure_tolerance',
  raftVoters: 'secrets_raft_voters',
  agentUp: 'scheduler_agent_up',
  agentInfo: 'scheduler_agent_info',
  agentHealthOk: 'scheduler_agent_health_ok',
  agentMembers: 'scheduler_agent_members',
  agentMemberStatus: 'scheduler_agent_member_status',
  agentKnownServers: 'scheduler_agent_known_servers',
  agentRaftLeaderKnown: 'scheduler_agent_raft_leader_known',
  agentAutopilotHealthy: 'scheduler_agent_autopilot_healthy',
  agentAutopilotFailureTolerance: 'scheduler_agent_autopilot_failure_tolerance',
  agentAutopilotVoters: 'scheduler_agent_autopilot_voters',
  agentClientNodes: 'scheduler_nodes',
  jobsCounted: 'scheduler_jobs',
  jobAllocations: 'scheduler_job_allocations',
  jobFailing: 'scheduler_job_allocations_failing',
  jobDead: 'scheduler_job_dead',
  evaluations: 'scheduler_evaluations',
  deploymentsCounted: 'scheduler_deployments',
  deploymentStatus: 'scheduler_deployment_status',
  deploymentShortfall: 'scheduler_deployment_shortfall',
  agentTokenExpiry: 'scheduler_agent_token_expiry_timestamp_seconds',
  secretsTokenExpiry: 'secrets_token_expiry_timestamp_seconds',
  teamsUp: 'teams_up',
  organizationTeams: 'teams_organization_teams',
  teamAccessInconsistent: 'teams_team_access_inconsistent',
  watchdogHealthy: 'vigil_alertsink_watchdog_healthy',
  watchdogLastSeen: 'vigil_alertsink_watchdog_last_seen_timestamp_seconds',
  sinkRejected: 'vigil_alertsink_rejected_total',
  sinkNotifications: 'vigil_alertsink_notifications_total',
  shardOrdinal: 'vigil_shard_ordinal',
  totalShards: 'vigil_total_shards',
  shardTargets: 'vigil_shard_targets',
} as const;

// A renamed family would leave the page silently empty: refuse to start instead.
const declared = new Set(CATALOG.map((f) => f.name));
const undeclared = Object.values(READS).filter((name) => !declared.has(name));
if (undeclared.length) throw new Error(`the status page reads ${undeclared.join(', ')}, which the metric catalog does not declare`);

export const READ_NAMES: ReadonlySet<string> = new Set(Object.values(READS));

/** The snapshot's samples of the families read, by family name. */
export type Families = Map<string, Sample[]>;

const byTarget = new WeakMap<Families, Map<string, Map<string, Sample[]>>>();

/**
 * A family's samples of one target, indexed once per snapshot and family: filtered from the whole
 * family, each target would scan the series of every other, and the page's cost would grow with
 * their square.
 */
function ofOneTarget(f: Families, name: string, target: string): Sample[] {
  let families = byTarget.get(f);
  if (!families) byTarget.set(f, (families = new Map()));
  let index = families.get(name);
  if (!index) {
    families.set(name, (index = new Map()));
    for (const s of f.get(name) ?? []) {
      const t = s.labels.target ?? '';
      const list = index.get(t);
      if (list) list.push(s);
      else index.set(t, [s]);
    }
  }
  return index.get(target) ?? [];
}

export function of(f: Families, name: string, match: Record<string, string> = {}): Sample[] {
  const { target, ...rest } = match;
  const samples = target === undefined ? (f.get(name) ?? []) : ofOneTarget(f, name, target);
  const wanted = Object.entries(rest);
  return wanted.length ? samples.filter((s) => wanted.every(([k, v]) => s.labels[k] === v)) : [...samples];
}
export const one = (f: Families, name: string, match: Record<string, string>): number | undefined => of(f, name, match)[0]?.value;
export const flag = (v: number | undefined): boolean | null => (v === undefined ? null : v === 1);
export const targetsOf = (f: Families, name: string): string[] => [...new Set(of(f, name).map((s) => s.labels.target ?? ''))];
export const sum = (samples: readonly Sample[]): number => samples.reduce((n, s) => n + s.value, 0);

/** The families `names` of one target, from the same index as `of`. */
export const ofTarget = (f: Families, names: readonly string[], target: string): Families => new Map(names.map((name) => [name, ofOneTarget(f, name, target)]));
