import { createTelemetry, type NodeTelemetry } from './telemetry.js';

/**
 * The nodes of one simulated cluster: one active node, standbys and performance standbys, every one a
 * raft voter, each with a listener of its own (its API address) answering its own `sys/health`; its
 * raft address is its API port plus one, as a server's 8201 beside its 8200. The cluster's own
 * address, a load balancer's, reaches the active node. Faults change one node at a time.
 */
/** A node's audit devices: `ok`, or every one blocked, so that what it audits hangs (`hang`) or fails 500 (`error`): audit.ts. */
export const AUDIT_MODES = ['ok', 'hang', 'error'] as const;
export type AuditMode = (typeof AUDIT_MODES)[number];

export type StandbyKind = 'standby' | 'performance_standby';

export interface SimNode {
  /** Its name, as the cluster reports it: its raft node ID and its hostname alike (`node-2`), what the demo's faults name it by. */
  readonly id: string;
  /** What the node is while another one is active. */
  readonly standbyKind: StandbyKind;
  /** Its API address, known once its listener is bound. */
  url: string;
  sealed: boolean;
  /** Killed: the process is gone, nothing answers at its address. */
  dead: boolean;
  /** Removed from the raft cluster: answers 530, gone from the HA status and autopilot. */
  removed: boolean;
  /** Raft log entries behind the leader. */
  lagEntries: number;
  version: string;
  clockSkewMs: number;
  /** Key shares entered towards unsealing a sealed node (its seal status's `progress`); 0: none. */
  unsealProgress: number;
  /** The unseal attempt's nonce while shares are being entered; empty otherwise. */
  unsealNonce: string;
  /** The cluster's seal backends this node cannot reach, each with the time it was last seen healthy. */
  readonly sealBackendsDown: Map<string, Date>;
  /** Its audit devices: `ok`, or all blocked (`hang`, `error`), so that what it audits is not served (audit.ts). */
  audit: AuditMode;
  /** What its own `sys/metrics` serves: its counters, and the telemetry faults set on it (telemetry.ts). */
  readonly telemetry: NodeTelemetry;
}

export interface NodeSet {
  readonly nodes: SimNode[];
  activeId: string;
  /** Expiry of the licence every node reports; null: none reported (community edition). */
  licenseExpiry: Date | null;
  /** When the current active node took over. */
  activeSince: Date;
}

export const SIM_VERSION = '1.17.3+ent';
/** The build date its seal status reports (`build_date`, RFC 3339 as the servers write it). */
export const SIM_BUILD_DATE = '2024-08-06T14:28:45Z';
/** Entries a server may trail the leader by before autopilot calls it unhealthy (max_trailing_logs). */
export const MAX_TRAILING_LOGS = 1000;

export function createNodes(count: number, now = new Date()): NodeSet {
  const nodes = Array.from({ length: count }, (_, i): SimNode => ({
    id: `node-${i + 1}`,
    standbyKind: i % 2 === 1 ? 'standby' : 'performance_standby',
    url: '',
    sealed: false,
    dead: false,
    removed: false,
    lagEntries: 0,
    version: SIM_VERSION,
    clockSkewMs: 0,
    unsealProgress: 0,
    unsealNonce: '',
    sealBackendsDown: new Map(),
    audit: 'ok',
    telemetry: createTelemetry(),
  }));
  return { nodes, activeId: 'node-1', licenseExpiry: new Date(now.getTime() + 365 * 86_400_000), activeSince: now };
}

/** A node of the raft cluster: not removed. */
export const member = (n: SimNode): boolean => !n.removed;
/** A node that takes part: alive, unsealed, still a member. */
export const serving = (n: SimNode): boolean => member(n) && !n.dead && !n.sealed;

/** A leader needs a quorum: more than half of the voters serving. */
export function hasQuorum(set: NodeSet): boolean {
  const voters = set.nodes.filter(member);
  return voters.filter(serving).length >= Math.floor(voters.length / 2) + 1;
}

/** The node that is active: the leader, serving, with its quorum; none while the cluster is sealed or has lost its quorum. */
export function activeNode(set: NodeSet, clusterSealed: boolean): SimNode | undefined {
  const a = set.nodes.find((n) => n.id === set.activeId);
  return a && serving(a) && !clusterSealed && hasQuorum(set) ? a : undefined;
}

export type NodeRole = 'active' | StandbyKind;
export const roleOf = (set: NodeSet, n: SimNode): NodeRole => (n.id === set.activeId ? 'active' : n.standbyKind);

/** Hands the active role to the next node that can take it (the leader flapping); none: no active node. */
export function moveLeadership(set: NodeSet, to?: string, now = new Date()): SimNode | undefined {
  const order = set.nodes.filter(serving);
  const next = to !== undefined ? order.find((n) => n.id === to) : order[(order.findIndex((n) => n.id === set.activeId) + 1) % order.length];
  if (!next) return undefined;
  set.activeId = next.id;
  set.activeSince = now;
  return next;
}

/** A healthy voter in autopilot's eyes: serving and not trailing the leader too far. */
export const healthyVoter = (n: SimNode): boolean => serving(n) && n.lagEntries <= MAX_TRAILING_LOGS;

/** Voters the cluster can lose: healthy voters beyond the quorum of all voters (as autopilot counts it). */
export function failureTolerance(set: NodeSet): number {
  const voters = set.nodes.filter(member);
  const quorum = Math.floor(voters.length / 2) + 1;
  return Math.max(0, voters.filter(healthyVoter).length - quorum);
}
