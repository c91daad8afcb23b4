import { z } from 'zod';
import { duration, keptAtMost, readableFile, schedule, targetFields } from '../../config-fields/fields.js';
import { EVERY_15_SECONDS } from '../../config-fields/schedule.js';
import { REPLICATION_KINDS } from './replication-status.js';
import { nodesField } from './node-target.js';
import { snapshotsField } from './snapshot-target.js';

export const secretsTarget = z.strictObject({
  ...targetFields(EVERY_15_SECONDS),
  /** Sent as X-Secrets-Namespace. The status endpoints answer in any namespace. */
  namespace: z.string().min(1).optional(),
  replication_kinds: z
    .array(z.enum(REPLICATION_KINDS))
    .min(1)
    .default([...REPLICATION_KINDS])
    .refine((k) => new Set(k).size === k.length, 'each kind at most once'),
  /**
   * Names the replication set this cluster belongs to, per kind, to join clusters whose answers do
   * not link them (vigil links clusters by cluster_id, known secondaries and primaries' addresses).
   */
  replication_set: z.strictObject({ performance: z.string().min(1).optional(), dr: z.string().min(1).optional() }).optional(),
  /** Peers of each list of a replication status (secondaries, primaries) with series of their own. */
  max_replication_peers: keptAtMost(100, 10_000, 1),
  merkle_check: z
    .strictObject({
      dr_operation_token_file: readableFile,
      schedule: schedule('0 0 * * * *'),
      timeout: duration('60s'),
      /** Trees of the corruption report with series of their own. */
      max_trees: keptAtMost(100, 10_000, 1),
    })
    .optional(),
  /** Every node of the cluster, polled at its own address (sys/health), with the cluster's HA and raft state. */
  nodes: nodesField,
  /** Automated raft snapshots (Enterprise, integrated storage): each configuration's last success and errors. */
  snapshots: snapshotsField,
});
export type SecretsTarget = z.output<typeof secretsTarget>;
