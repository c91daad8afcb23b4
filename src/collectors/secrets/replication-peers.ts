import { family, single, stateSet, type Family, type Sample } from '../../metrics/family.js';

/**
 * What newer servers add to a primary's view of each secondary, beyond the spec: exported when
 * present, absent when an older server does not send it (never a made-up 0).
 */

/** What these families read of a peer (a secondary a primary lists, a primary a secondary lists), as the status schema gives it. */
export interface ReplicationPeer {
  readonly node_id?: string | undefined;
  readonly api_address?: string | undefined;
  readonly cluster_address?: string | undefined;
  readonly clock_skew_ms?: number | undefined;
  readonly last_heartbeat_duration_ms?: number | undefined;
  readonly replication_primary_canary_age_ms?: number | undefined;
  readonly connection_state?: string | undefined;
}

/** What they read of a status: its mode, the peers it lists, a secondary's connection and the last reindex. */
interface ReplicationStatus {
  readonly mode: string;
  readonly connection_state?: string | undefined;
  readonly last_reindex_epoch?: number | undefined;
  readonly secondaries?: readonly ReplicationPeer[] | undefined;
  readonly primaries: readonly ReplicationPeer[];
}

const FROM_POLL = 'from a scheduled poll of sys/replication/{kind}/status; absent when the server does not send it';
const TK = ['target', 'kind'] as const;
/** gRPC connectivity states, as the service reports them (lower-cased). */
export const GRPC_STATES = ['idle', 'connecting', 'ready', 'transient_failure', 'shutdown'] as const;

const secondaries = (s: ReplicationStatus) => (s.mode === 'primary' ? (s.secondaries ?? []) : []);

/** One sample per secondary that has a node id and the field. */
function perSecondary(s: ReplicationStatus, value: (p: ReplicationPeer) => number | undefined): Sample[] {
  return secondaries(s).flatMap((p) => {
    const v = value(p);
    return p.node_id !== undefined && v !== undefined ? [{ labels: { secondary_id: p.node_id }, value: v }] : [];
  });
}

const ms = (v: number | undefined) => (v === undefined ? undefined : v / 1000);

/** How a secondary names the primary it follows. */
export const primaryAddress = (p: ReplicationPeer): string => p.cluster_address ?? p.api_address ?? '';

/** One sample per primary a secondary lists that has the field. */
function perPrimary(s: ReplicationStatus, value: (p: ReplicationPeer) => number | undefined): Sample[] {
  if (s.mode !== 'secondary') return [];
  return s.primaries.flatMap((p) => {
    const v = value(p);
    return v === undefined ? [] : [{ labels: { primary_cluster_address: primaryAddress(p) }, value: v }];
  });
}

/** A millisecond field of each peer, in seconds: per secondary on a primary, per primary on a secondary. */
const peerSeconds = (side: 'secondary' | 'primary', name: string, help: string, field: (p: ReplicationPeer) => number | undefined) =>
  family<ReplicationStatus>({
    name: `secrets_replication_${side}_${name}`,
    help: `${help}; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, side === 'secondary' ? 'secondary_id' : 'primary_cluster_address'],
    samples: (s) => (side === 'secondary' ? perSecondary : perPrimary)(s, (p) => ms(field(p))),
  });

const CANARY = "the service's own measure of replication delay";

export const peerFamilies: readonly Family<ReplicationStatus>[] = [
  peerSeconds(
    'secondary',
    'primary_canary_age_seconds',
    `Age of the last replication canary the primary wrote that a secondary has applied, as the primary reports it: ${CANARY}`,
    (p) => p.replication_primary_canary_age_ms,
  ),
  peerSeconds('secondary', 'clock_skew_seconds', 'Clock difference between the primary and a secondary', (p) => p.clock_skew_ms),
  peerSeconds(
    'secondary',
    'last_heartbeat_duration_seconds',
    'How long the last heartbeat between the primary and a secondary took',
    (p) => p.last_heartbeat_duration_ms,
  ),
  peerSeconds(
    'primary',
    'canary_age_seconds',
    `Age of the last replication canary of its primary that a secondary has applied, as the secondary reports it: ${CANARY}`,
    (p) => p.replication_primary_canary_age_ms,
  ),
  peerSeconds('primary', 'clock_skew_seconds', 'Clock difference between a secondary and its primary, as the secondary reports it', (p) => p.clock_skew_ms),
  peerSeconds(
    'primary',
    'last_heartbeat_duration_seconds',
    'How long the last heartbeat between a secondary and its primary took, as the secondary reports it',
    (p) => p.last_heartbeat_duration_ms,
  ),
  family<ReplicationStatus>({
    name: 'secrets_replication_secondary_connection_state',
    help: `The gRPC connection state of a secondary's stream, one series per state, 1 for the current one; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, 'secondary_id', 'state'],
    samples: (s) =>
      secondaries(s).flatMap((p) =>
        p.node_id !== undefined && p.connection_state !== undefined
          ? stateSet('state', GRPC_STATES, p.connection_state.toLowerCase()).map((x) => ({ ...x, labels: { ...x.labels, secondary_id: p.node_id! } }))
          : [],
      ),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_connection_state',
    help: `A secondary's gRPC connection to its primary, one series per state, 1 for the current one (connection_state); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, 'state'],
    samples: (s) => (s.mode === 'secondary' && s.connection_state !== undefined ? stateSet('state', GRPC_STATES, s.connection_state.toLowerCase()) : []),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_last_reindex_timestamp_seconds',
    help: `When the cluster last finished a reindex, as Unix time; absent when it never did or does not say.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK],
    samples: single((s) => (s.last_reindex_epoch !== undefined && s.last_reindex_epoch > 0 ? s.last_reindex_epoch : undefined)),
  }),
];
