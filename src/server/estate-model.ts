import type { TargetView } from '../engine/collection-engine.js';

/** The estate as the status page shows it (built by `buildEstate` in estate.ts, rendered by ui/estate-view.ts). */

export interface ReplicationKind {
  kind: string;
  mode: string;
  state: string | null;
  up: boolean;
  merkleCorrupted: boolean;
  secondaries: Array<{ id: string; connected: boolean; heartbeatAgeSeconds: number | null; walLag: number | null }>;
  primary: { address: string; connected: boolean; heartbeatAgeSeconds: number | null } | null;
}

export interface SecretsCluster {
  target: string;
  sealed: boolean | null;
  kinds: ReplicationKind[];
  drTokenAttempt: { started: boolean; progress: number; required: number } | null;
  merkleCheck: { up: boolean; corruptedRoot: boolean; corruptedTrees: number } | null;
  /** Its nodes as vigil polls each at its own address; null when vigil reports none for it. */
  nodes: ClusterNodes | null;
  /** Whole days until vigil's own token on it expires (negative once expired); null when no expiry is reported. */
  tokenDaysLeft: number | null;
  /** Its automated raft snapshots vigil polls (`snapshots`); empty without them. */
  snapshots: SnapshotView[];
  /** One line per cause (the consequences it explains are under it, in `consequences`, not here). */
  problems: string[];
  consequences: Consequences;
}

/** One automated snapshot configuration: how long ago it last succeeded (null: not seen), its attempts failed in a row. */
export interface SnapshotView {
  name: string;
  up: boolean;
  lastSuccessAgeSeconds: number | null;
  consecutiveErrors: number | null;
}

/** Per problem line, the problems it explains: shown under it, and not counted again. */
export type Consequences = Array<{ cause: string; lines: string[] }>;

/** One node of a secrets cluster, from its own sys/health answer. */
export interface SecretsNode {
  /** The node's name as the cluster reports it: its raft node ID, else its HA hostname, else its address (the series' `node`). */
  name: string;
  /** The node's API address as vigil polls it (the series' `address`). */
  address: string;
  up: boolean;
  /** active, standby, performance_standby, dr_secondary or removed; null while down, sealed or uninitialized. */
  role: string | null;
  sealed: boolean | null;
  initialized: boolean | null;
  version: string | null;
  /** Whether what it audits is served (secrets_node_requests_blocked); null where vigil does not ask it (its token does not go there). */
  requestsBlocked: boolean | null;
}

/** A secrets cluster's nodes, where they came from, and its raft quorum where integrated storage reports one. */
export interface ClusterNodes {
  /** ha_status, autopilot, configured or address_only; with why, when the list could not be read. */
  source: string | null;
  reason: string | null;
  /** The node the cluster reports active, by the name and address its row in `nodes` has. */
  activeNode: { name: string; address: string } | null;
  nodes: SecretsNode[];
  raft: { healthy: boolean | null; failureTolerance: number | null; optimisticFailureTolerance: number | null; voters: number | null } | null;
}

export interface ReplicationSet {
  kind: string;
  set: string;
  primaries: number;
  members: Array<{ target: string; mode: string }>;
}

export interface AgentView {
  target: string;
  up: boolean;
  name: string | null;
  /** The agent's own region (scheduler_agent_info); null when vigil does not report it. */
  region: string | null;
  server: boolean | null;
  health: Array<{ role: string; ok: boolean }>;
  members: Record<string, number>;
  failedMembers: string[];
  knownServers: number | null;
  raftLeader: boolean | null;
  fleet: AgentFleet;
  /** Whole days until vigil's own ACL token on it expires (negative once expired); null when no expiry is reported. */
  tokenDaysLeft: number | null;
  /** One line per cause: a pool down that an agent of the same region reports first is that agent's line, with this one's name under it. */
  problems: string[];
  consequences: Consequences;
}

/** The agent's region as autopilot and the client node listing report it. */
export interface AgentFleet {
  /** The raft quorum of the region's servers; null when vigil reports no autopilot health for the agent. */
  autopilot: { healthy: boolean | null; failureTolerance: number | null; voters: number | null } | null;
  /** Client nodes per node pool ('' before the API had pools), by status; empty when nodes are not listed. */
  pools: Array<{ pool: string; ready: number; down: number; disconnected: number }>;
  /** The region's jobs with problems, blocked evaluations and failed deployments; null when the agent lists none of them. */
  workload: AgentWorkload | null;
}

export interface AgentWorkload {
  /** The jobs with a problem, the worst first (a service down, a failed deployment short of its count, failing, queued, a failed deployment). */
  jobs: Array<{
    namespace: string;
    job: string;
    problem: 'no running allocation' | 'dead' | 'deployment short' | 'failing' | 'queued' | 'deployment failed';
    /** Allocations queued, failing or short; 0 where the problem has no count. */
    count: number;
  }>;
  /** Jobs with a problem beyond those listed. */
  moreJobs: number;
  blockedEvaluations: number;
}

export interface OrganizationView {
  target: string;
  organization: string;
  up: boolean;
  teams: number;
  breaches: Array<{ team: string; rule: string }>;
  problems: string[];
}

export interface AlertPathView {
  watchdogHealthy: boolean | null;
  watchdogLastSeen: string | null;
  rejected: Record<string, number>;
  notificationsTotal: number;
}

/** Which shard of the targets this replica polls, when they are split over several. */
export interface ShardView {
  ordinal: number;
  total: number;
  /** Configured targets of this shard, and of all shards. */
  polled: number;
  configured: number;
}

export interface Estate {
  generatedAt: string;
  shard: ShardView | null;
  problems: number;
  secrets: SecretsCluster[];
  replicationSets: ReplicationSet[];
  agents: AgentView[];
  organizations: OrganizationView[];
  targets: TargetView[];
  alertPath: AlertPathView;
}
