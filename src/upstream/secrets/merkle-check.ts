import { z } from 'zod';
import { boolish, instant, lenient } from '../schema-helpers.js';

/** `POST /v1/sys/replication/dr/secondary/merkle-check`: the corruption report of a DR secondary. */
const flag = lenient(boolish).transform((v) => v ?? false);
const page = z.object({ corrupted: flag, subpages: lenient(z.array(z.number())) });

const tree = z.object({
  corrupted_index_tuples_map: lenient(z.record(z.string(), page)).transform((v) => v ?? {}),
  corrupted_subtree_root: flag,
  root_hash: lenient(z.string()),
  tree_type: lenient(z.string()).transform((v) => v ?? 'unknown'),
});

/** Only the report itself is essential; a field that cannot be read drops the series it feeds. */
export const merkleReport = z.object({
  corrupted_root: lenient(boolish),
  // Absent or unreadable: the trees are not reported (no series, not "0 corrupted"). `null` is how
  // the service's encoder writes an empty map: no tree listed.
  corrupted_tree_map: z
    .unknown()
    .optional()
    .transform((v) => (v === null ? {} : lenient(z.record(z.string(), tree)).parse(v))),
  last_corruption_check_epoch: lenient(instant),
});

export const merkleCheckResponse = z.object({ data: z.object({ merkle_corruption_report: merkleReport }) });

export type MerkleReport = z.output<typeof merkleReport>;
export type MerkleTree = z.output<typeof tree>;
