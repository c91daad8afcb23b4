import { z } from 'zod';
import { family, single, stateSet, upFamily, type Family, type Sample } from '../../metrics/family.js';
import { boolish, instant, lenient, numberish, statNumber, statText } from '../../upstream/schema-helpers.js';
import { boundPeers, peersDroppedFamily } from './replication-bounds.js';
import { endpoint } from '../endpoint.js';
import type { SecretsAuth } from './auth.js';
import { peerFamilies, primaryAddress } from './replication-peers.js';

/** The kinds of replication, each with its own `sys/replication/<kind>/status`. */
export const REPLICATION_KINDS = ['performance', 'dr'] as const;
export type ReplicationKind = (typeof REPLICATION_KINDS)[number];

/**
 * `GET /v1/sys/replication/{performance,dr}/status`, primary, secondary and disabled forms in one
 * tolerant schema: extra fields pass, numbers may be strings, `state` may be missing (older
 * primaries), and `mode`/`state` values outside the spec's are kept as they are. Only `mode` is
 * essential: any other field that is missing, null or of another type drops the series it feeds.
 */
const text = lenient(z.string());
const strings = lenient(z.array(z.string()));
const peer = z.object({
  node_id: text,
  api_address: text,
  cluster_address: text,
  // Missing: the connection is unknown (no series), which is not "disconnected".
  connection_status: text,
  last_heartbeat: lenient(instant),
  // Sent by newer servers only; a value of another type drops only its own series.
  clock_skew_ms: statNumber,
  last_heartbeat_duration_ms: statNumber,
  replication_primary_canary_age_ms: statNumber,
  connection_state: statText,
});

export const replicationStatusData = z.object({
  mode: z.string().min(1),
  cluster_id: text.transform((v) => v ?? ''),
  state: text,
  // primary
  known_secondaries: strings.transform((v) => v ?? []),
  last_wal: lenient(numberish),
  merkle_root: text,
  corrupted_merkle_tree: lenient(boolish),
  last_corruption_check_epoch: lenient(instant),
  last_reindex_epoch: statNumber,
  // A secondary's gRPC connection to its primary (newer servers); absent before.
  connection_state: statText,
  // Absent before version 1.5 (primaries then report only known_secondaries): `undefined` means
  // "not reported", which is not "disconnected". `null` is an empty list (none connected). A list
  // that cannot be read (not a list, or an entry that is no object) is not reported either.
  secondaries: z
    .unknown()
    .optional()
    .transform((v) => (v === null ? [] : lenient(z.array(peer)).parse(v))),
  // secondary
  known_primary_cluster_addrs: strings.transform((v) => v ?? []),
  last_remote_wal: lenient(numberish),
  primaries: lenient(z.array(peer)).transform((v) => v ?? []),
  primary_cluster_addr: text,
  secondary_id: text,
});

export const replicationStatusResponse = z.object({ data: replicationStatusData });

/** A status as vigil keeps it: its lists bounded by max_replication_peers (`boundPeers`), the count of known secondaries whole. */
export type ReplicationStatus = z.output<typeof replicationStatusData> & { readonly peers_dropped?: number; readonly known_secondaries_total?: number };
export type ReplicationPeer = z.output<typeof peer>;

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
    samples: single((s) => (isPrimary(s) ? (s.known_secondaries_total ?? s.known_secondaries.length) : undefined)),
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
  peersDroppedFamily,
];

/** What the call reads of its target: how many peers of each list get series. */
interface PeersCall extends SecretsAuth {
  readonly target: { readonly max_replication_peers: number };
}

/**
 * Replication status of one kind, in the target's namespace (unauthenticated per the API: a service
 * that still checks wants read on the path); a sealed or standby node says so in its status code
 * (the collector's `secretsFailure`).
 */
export const replicationStatusEndpoint = endpoint({
  id: 'secrets/replication-status',
  method: 'GET',
  path: '/v1/sys/replication/{kind}/status',
  schema: replicationStatusResponse,
  send: async (c: PeersCall, kind: string) => ({ ...(await c.namespaced()), params: { kind } }),
  read: async (get, c: PeersCall): Promise<ReplicationStatus> => boundPeers((await get()).value.data, c.target.max_replication_peers),
  needs: 'none: unauthenticated per the API (a service that still checks wants read on sys/replication/{kind}/status)',
  up: replicationUp,
  bounds: [
    { items: 'peers of each list (known and listed secondaries, primaries)', key: 'max_replication_peers', dropped: 'secrets_replication_peer_series_dropped' },
  ],
  families: replicationFamilies,
});
