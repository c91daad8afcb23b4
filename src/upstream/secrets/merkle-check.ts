import { z } from 'zod';
import { boolish, instant } from '../schema-helpers.js';

/** `POST /v1/sys/replication/dr/secondary/merkle-check`: the corruption report of a DR secondary. */
const page = z.object({ corrupted: boolish.default(false), subpages: z.array(z.number()).nullish() });

const tree = z.object({
  corrupted_index_tuples_map: z.record(z.string(), page).nullish().transform((v) => v ?? {}),
  corrupted_subtree_root: boolish.default(false),
  root_hash: z.string().optional(),
  tree_type: z.string().default('unknown'),
});

export const merkleReport = z.object({
  corrupted_root: boolish,
  corrupted_tree_map: z.record(z.string(), tree).nullish().transform((v) => v ?? {}),
  last_corruption_check_epoch: instant.optional(),
});

export const merkleCheckResponse = z.object({ data: z.object({ merkle_corruption_report: merkleReport }) });

export type MerkleReport = z.output<typeof merkleReport>;
export type MerkleTree = z.output<typeof tree>;
