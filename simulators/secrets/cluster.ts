import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { noFaults, type Faults } from '../common/faults.js';
import { createNodes, type NodeSet } from './nodes.js';
import { quirksOf, type Quirks } from './profiles.js';
import { createSnapshots, type SnapshotSet } from './snapshots.js';

export type Kind = 'performance' | 'dr';
export const KINDS: readonly Kind[] = ['performance', 'dr'];
export const isKind = (s: string | undefined): s is Kind => s === 'performance' || s === 'dr';

/** The replication link between one primary and one secondary id, seen from both ends. */
export interface Link {
  readonly kind: Kind;
  readonly secondaryId: string;
  readonly primary: ClusterModel;
  readonly secondary: ClusterModel;
  /** The API address the secondary shows for its primary (`primary_api_addr` may override it). */
  readonly primaryApiAddr: string;
  /** Cleared by the admin API to simulate a network partition. */
  adminConnected: boolean;
  /** Cleared by the admin API's `remove`: gone from `secondaries[]`, still in `known_secondaries`. */
  listed: boolean;
  /** Set for good when either end leaves the relationship (revoke, demote, disable, promote). */
  ended: boolean;
  heartbeatStopped: boolean;
  lastHeartbeat: Date;
  /** Cleared to make the secondary lag behind the primary's WAL. */
  following: boolean;
}

export interface PathsFilter {
  mode: 'allow' | 'deny';
  paths: string[];
}

export interface PrimaryRole {
  mode: 'primary';
  clusterId: string;
  lastWal: number;
  primaryClusterAddr: string;
  /** Every id a secondary token was issued for, activated or not. */
  known: Set<string>;
  links: Map<string, Link>;
  pathsFilters: Map<string, PathsFilter>;
}

export interface SecondaryRole {
  mode: 'secondary';
  clusterId: string;
  secondaryId: string;
  link?: Link;
  lastRemoteWal: number;
  /** Cluster ID of the primary whose WAL stream this copy came from; it decides the merkle root. */
  dataOrigin: string;
  stateOverride?: string;
  /** A demoted primary must be given a token to rejoin (update-primary rule 2). */
  demoted: boolean;
}

export type Role = { mode: 'disabled' } | PrimaryRole | SecondaryRole;

export interface CorruptTree {
  treeType: 'replicated' | 'local';
  /** Page number to corrupted subpages; null when the corruption is not page-level. */
  pages: Map<string, number[]> | null;
  subtreeRoot: boolean;
  rootHash: string;
}

export interface KindState {
  role: Role;
  corruptRoot: boolean;
  corruptTrees: Map<string, CorruptTree>;
  lastCorruptionCheck?: Date;
  lastReindex?: Date;
}

export interface KeyShares {
  shares: string[];
  threshold: number;
}

export interface OperationTokenAttempt {
  nonce: string;
  otp: string;
  provided: Set<string>;
}

export interface ClientToken {
  sudo: boolean;
  expiresAt?: Date;
  /** When it was issued (the lookup's issue_time); unset: when the cluster started. */
  issuedAt?: Date;
}

export interface ClusterModel {
  readonly name: string;
  /** The cluster's own id (`sys/health` cluster_id), apart from its replication ids. */
  readonly id: string;
  /** Both known only once the listener is bound. */
  url: string;
  clusterAddr: string;
  readonly rootToken: string;
  /** Client tokens: whether they carry `sudo`, and when they expire (never when unset, as the root token). */
  readonly tokens: Map<string, ClientToken>;
  sealed: boolean;
  readonly quirks: Quirks;
  readonly faults: Faults;
  keys: KeyShares;
  readonly operationTokens: Set<string>;
  attempt?: OperationTokenAttempt;
  readonly replication: Record<Kind, KindState>;
  readonly startedAt: Date;
  /** Its nodes, each with its own health; the cluster's address reaches the active one. */
  readonly nodes: NodeSet;
  /** Names of its auto seals under Seal HA (two or three); empty: one Shamir seal, unsealed with key shares. */
  readonly sealBackends: readonly string[];
  /** Its automated raft snapshots, and whether it serves them at all (Enterprise, integrated storage). */
  readonly snapshots: SnapshotSet;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomBase62(length: number): string {
  return Array.from(randomBytes(length), (b) => BASE62[b % BASE62.length]).join('');
}

export const newClusterId = (): string => randomUUID();

/** Follows the WAL index so two clusters that applied the same WALs show the same root. */
export function merkleRoot(clusterId: string, wal: number): string {
  return createHash('sha1').update(`${clusterId}:${wal}`).digest('hex');
}

function newKindState(): KindState {
  return { role: { mode: 'disabled' }, corruptRoot: false, corruptTrees: new Map() };
}

export function newKeyShares(count = 5, threshold = 3): KeyShares {
  return { shares: Array.from({ length: count }, () => randomBytes(33).toString('hex')), threshold };
}

export function createCluster(name: string, nodeCount = 3, sealBackends: readonly string[] = [], snapshots: SnapshotSet = createSnapshots()): ClusterModel {
  const rootToken = `s.${randomBase62(24)}`;
  return {
    name,
    id: randomUUID(),
    nodes: createNodes(nodeCount),
    sealBackends,
    snapshots,
    url: '',
    clusterAddr: '',
    rootToken,
    tokens: new Map([[rootToken, { sudo: true }]]),
    sealed: false,
    quirks: quirksOf('current'),
    faults: noFaults(),
    keys: newKeyShares(),
    operationTokens: new Set(),
    replication: { performance: newKindState(), dr: newKindState() },
    startedAt: new Date(),
  };
}

/** A link carries traffic only while neither end is sealed and nobody cut or ended it. */
export function linkUp(link: Link): boolean {
  return !link.ended && link.adminConnected && !link.primary.sealed && !link.secondary.sealed;
}

export function secondaryState(role: SecondaryRole): string {
  if (role.stateOverride !== undefined) return role.stateOverride;
  if (!role.link) return 'idle';
  return linkUp(role.link) ? 'stream-wals' : 'connecting';
}

export function isCorrupted(state: KindState): boolean {
  return state.corruptRoot || state.corruptTrees.size > 0;
}
