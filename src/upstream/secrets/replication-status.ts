import { z } from 'zod';
import { boolish, instant, lenient, numberish, statNumber, statText } from '../schema-helpers.js';

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

export type ReplicationStatus = z.output<typeof replicationStatusData>;
export type ReplicationPeer = z.output<typeof peer>;
