import { family, single, stateSet, upFamily, type Family, type Sample } from '../../metrics/family.js';
import { peerFamilies, primaryAddress } from './replication-peers.js';
import type { ReplicationPeer, ReplicationStatus } from '../../upstream/secrets/replication-status.js';

/** Replication status of one cluster, one kind: pure mapping from the parsed status to samples. */

const FROM_POLL = 'from a scheduled poll of sys/replication/<kind>/status';
const TK = ['target', 'kind'] as const;

export const KNOWN_MODES = ['primary', 'secondary', 'disabled', 'bootstrapping', 'unknown', 'unsupported'] as const;
export const KNOWN_STATES = ['stream-wals', 'running', 'merkle-diff', 'merkle-sync', 'idle', 'connecting', 'ready', 'transient_failure', 'shutdown'] as const;

export const replicationUp = upFamily({
  name: 'secrets_replication_up',
  help: `1 when the last scheduled poll of sys/replication/<kind>/status succeeded and parsed, else 0.`,
  section: 'secrets',
  labels: [...TK],
});

const isPrimary = (s: ReplicationStatus) => s.mode === 'primary';

/** Last heartbeat of each peer that has one, labelled by the peer's identity. */
function heartbeats(peers: readonly ReplicationPeer[], label: string, id: (p: ReplicationPeer) => string | undefined): Sample[] {
  return peers.flatMap((p) => {
    const v = id(p);
    return v !== undefined && p.last_heartbeat !== undefined ? [{ labels: { [label]: v }, value: p.last_heartbeat }] : [];
  });
}
const isSecondary = (s: ReplicationStatus) => s.mode === 'secondary';

export const replicationFamilies: readonly Family<ReplicationStatus>[] = [
  family<ReplicationStatus>({
    name: 'secrets_replication_mode',
    help: `Replication mode of the cluster for this kind, one series per mode, 1 for the current one; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, 'mode'],
    samples: (s) => stateSet('mode', KNOWN_MODES, s.mode),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_info',
    help: `Identity of the cluster for this replication kind (always 1); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, 'cluster_id', 'mode'],
    samples: (s) => [{ labels: { cluster_id: s.cluster_id, mode: s.mode }, value: 1 }],
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_state',
    help: `Replication state, one series per known state (plus the current one if unknown), 1 for the current one; absent when the cluster reports no state; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, 'state'],
    samples: (s) => (s.state === undefined ? [] : stateSet('state', KNOWN_STATES, s.state)),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_last_wal',
    help: `Index of the last write-ahead log entry on a primary; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK],
    samples: single((s) => (isPrimary(s) ? s.last_wal : undefined)),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_last_remote_wal',
    help: `Index of the last write-ahead log entry a secondary received from its primary; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK],
    samples: single((s) => (isSecondary(s) ? s.last_remote_wal : undefined)),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_known_secondaries',
    help: `Number of secondaries a primary knows of (issued activation tokens); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK],
    samples: single((s) => (isPrimary(s) ? s.known_secondaries.length : undefined)),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_secondaries_reported',
    help: `1 when a primary's answer lists its secondaries' connections, 0 when it does not (versions before 1.5 send only known_secondaries: their connection series are then absent, not 0); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK],
    samples: single((s) => (isPrimary(s) ? s.secondaries !== undefined : undefined)),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_secondary_connected',
    help: `1 when a known secondary is listed as connected to this primary, else 0 (also 0 when it is missing from the list); absent when the primary does not report connections (see secrets_replication_secondaries_reported); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, 'secondary_id'],
    samples: (s) => {
      if (!isPrimary(s) || s.secondaries === undefined) return [];
      const listed = new Map(s.secondaries.map((p) => [p.node_id, p.connection_status]));
      // An entry without a node id could be any unlisted secondary: their connections are unknown.
      const unlistedUnknown = listed.has(undefined);
      // Listed without a status: its connection is unknown, so no series (unknown is not disconnected).
      return s.known_secondaries.flatMap((id) => {
        const known = listed.has(id) ? listed.get(id) !== undefined : !unlistedUnknown;
        return known ? [{ labels: { secondary_id: id }, value: listed.get(id) === 'connected' ? 1 : 0 }] : [];
      });
    },
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_secondary_last_heartbeat_timestamp_seconds',
    help: `When a primary last heard from a secondary, as Unix time; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, 'secondary_id'],
    samples: (s) => (isPrimary(s) ? heartbeats(s.secondaries ?? [], 'secondary_id', (p) => p.node_id) : []),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_primary_connected',
    help: `A secondary's view of each primary it knows: 1 when connected, else 0; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, 'primary_cluster_address'],
    samples: (s) =>
      isSecondary(s)
        ? s.primaries.flatMap((p) =>
            p.connection_status === undefined
              ? []
              : [{ labels: { primary_cluster_address: primaryAddress(p) }, value: p.connection_status === 'connected' ? 1 : 0 }],
          )
        : [],
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_primary_last_heartbeat_timestamp_seconds',
    help: `When a secondary last heard from each primary, as Unix time; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK, 'primary_cluster_address'],
    samples: (s) => (isSecondary(s) ? heartbeats(s.primaries, 'primary_cluster_address', primaryAddress) : []),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_merkle_tree_corrupted',
    help: `1 when the status reports a corrupted merkle tree, else 0; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK],
    samples: single((s) => s.corrupted_merkle_tree),
  }),
  family<ReplicationStatus>({
    name: 'secrets_replication_last_corruption_check_timestamp_seconds',
    help: `When the merkle tree was last checked for corruption, as Unix time; absent when never checked; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...TK],
    samples: single((s) => s.last_corruption_check_epoch),
  }),
  ...peerFamilies,
];
