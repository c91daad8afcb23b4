import { z } from 'zod';
import { boolish, instant, numberish, statNumber, statText } from '../schema-helpers.js';

/**
 * `GET /v1/sys/replication/{performance,dr}/status`, primary, secondary and disabled forms in one
 * tolerant schema: extra fields pass, numbers may be strings, `state` may be missing (older
 * primaries), and `mode`/`state` values outside the spec's are kept as they are.
 */
const peer = z.object({
  node_id: z.string().optional(),
  api_address: z.string().optional(),
  cluster_address: z.string().optional(),
  connection_status: z.string().default('unknown'),
  last_heartbeat: instant.optional(),
  // Sent by newer servers only; a value of another type drops only its own series.
  clock_skew_ms: statNumber,
  last_heartbeat_duration_ms: statNumber,
  replication_primary_canary_age_ms: statNumber,
  connection_state: statText,
});

export const replicationStatusData = z.object({
  mode: z.string().min(1),
  cluster_id: z.string().default(''),
  state: z.string().optional(),
  // primary
  known_secondaries: z.array(z.string()).nullish().transform((v) => v ?? []),
  last_wal: numberish.optional(),
  merkle_root: z.string().optional(),
  corrupted_merkle_tree: boolish.optional(),
  last_corruption_check_epoch: instant.optional(),
  last_reindex_epoch: statNumber,
  // A secondary's gRPC connection to its primary (newer servers); absent before.
  connection_state: statText,
  // Absent before version 1.5 (primaries then report only known_secondaries): `undefined` means
  // "not reported", which is not "disconnected". `null` is an empty list (none connected).
  secondaries: z
    .array(peer)
    .nullish()
    .transform((v) => (v === undefined ? undefined : (v ?? []))),
  // secondary
  known_primary_cluster_addrs: z.array(z.string()).nullish().transform((v) => v ?? []),
  last_remote_wal: numberish.optional(),
  primaries: z.array(peer).nullish().transform((v) => v ?? []),
  primary_cluster_addr: z.string().optional(),
  secondary_id: z.string().optional(),
});

export const replicationStatusResponse = z.object({ data: replicationStatusData });

export type ReplicationStatus = z.output<typeof replicationStatusData>;
export type ReplicationPeer = z.output<typeof peer>;
