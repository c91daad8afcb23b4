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
  problems: string[];
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
  server: boolean | null;
  health: Array<{ role: string; ok: boolean }>;
  members: Record<string, number>;
  failedMembers: string[];
  knownServers: number | null;
  raftLeader: boolean | null;
  problems: string[];
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
