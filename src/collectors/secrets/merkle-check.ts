import { z } from 'zod';
import { family, single, upFamily, type Family } from '../../metrics/family.js';
import { capped } from '../../metrics/series-cap.js';
import { boolish, instant, lenient } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';
import type { SecretsAuth } from './auth.js';

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

/** A report as vigil keeps it: at most merkle_check.max_trees trees (`boundTrees`). */
export type MerkleReport = z.output<typeof merkleReport> & { readonly trees_dropped?: number };
export type MerkleTree = z.output<typeof tree>;

/** The merkle corruption report of a DR secondary: pure mapping to samples. */

const FROM_CHECK = 'from a scheduled merkle-check of a DR secondary';
export const KNOWN_TREE_TYPES = ['replicated', 'local'] as const;

const corruptedPages = (t: MerkleTree) => Object.values(t.corrupted_index_tuples_map).filter((p) => p.corrupted).length;
/**
 * The service documents each entry of corrupted_index_tuples_map as "the page number along with a
 * list of corrupted subpage numbers": a page with `corrupted: false` and `subpages: [28]` holds a
 * corrupted subpage, so the tree is corrupted.
 */
const corruptedSubpages = (t: MerkleTree) => Object.values(t.corrupted_index_tuples_map).reduce((n, p) => n + (p.subpages?.length ?? 0), 0);
/** One sample per tree the report lists, valued by `count`. */
const perTree = (count: (t: MerkleTree) => number) => (r: MerkleReport) =>
  Object.entries(r.corrupted_tree_map ?? {}).map(([tree, t]) => ({ labels: { tree, tree_type: t.tree_type }, value: count(t) }));

const corrupted = ([, t]: [string, MerkleTree]) => t.corrupted_subtree_root || corruptedPages(t) > 0 || corruptedSubpages(t) > 0;

/** The report with at most `max` trees, the corrupted ones first: a secondary has a few trees, and a report of thousands costs one pass. */
export function boundTrees(r: MerkleReport, max: number): MerkleReport {
  if (r.corrupted_tree_map === undefined) return r;
  const { kept, dropped } = capped(Object.entries(r.corrupted_tree_map), max, corrupted);
  return { ...r, corrupted_tree_map: Object.fromEntries(kept), trees_dropped: dropped };
}

export const merkleUp = upFamily({
  name: 'secrets_merkle_check_up',
  help: '1 when the last scheduled merkle-check succeeded and parsed, else 0.',
  section: 'secrets',
  labels: ['target'],
});

export const merkleFamilies: readonly Family<MerkleReport>[] = [
  family<MerkleReport>({
    name: 'secrets_merkle_corrupted_root',
    help: `1 when the merkle root is corrupted, else 0; ${FROM_CHECK}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((r) => r.corrupted_root),
  }),
  family<MerkleReport>({
    name: 'secrets_merkle_corrupted_trees',
    help: `Number of merkle trees whose subtree root, any page or any subpage is corrupted, by tree type; absent when the report carries no readable tree map; ${FROM_CHECK}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'tree_type'],
    samples: (r) => {
      if (r.corrupted_tree_map === undefined) return [];
      const counts = new Map<string, number>(KNOWN_TREE_TYPES.map((t) => [t, 0]));
      for (const entry of Object.entries(r.corrupted_tree_map))
        counts.set(entry[1].tree_type, (counts.get(entry[1].tree_type) ?? 0) + (corrupted(entry) ? 1 : 0));
      return [...counts].map(([tree_type, value]) => ({ labels: { tree_type }, value }));
    },
  }),
  family<MerkleReport>({
    name: 'secrets_merkle_corrupted_pages',
    help: `Number of pages marked corrupted in each merkle tree the report lists; ${FROM_CHECK}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'tree', 'tree_type'],
    samples: perTree(corruptedPages),
  }),
  family<MerkleReport>({
    name: 'secrets_merkle_corrupted_subpages',
    help: `Number of corrupted subpages listed in each merkle tree the report lists (a page not itself marked corrupted may hold some); ${FROM_CHECK}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'tree', 'tree_type'],
    samples: perTree(corruptedSubpages),
  }),
  family<MerkleReport>({
    name: 'secrets_merkle_tree_series_dropped',
    help: `Merkle trees the report listed beyond merkle_check.max_trees, left without series (the corrupted ones are kept first, and only they are counted in secrets_merkle_corrupted_trees); ${FROM_CHECK}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((r) => r.trees_dropped),
  }),
  family<MerkleReport>({
    name: 'secrets_merkle_last_check_timestamp_seconds',
    help: `When the reported merkle check ran, as Unix time; ${FROM_CHECK}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((r) => r.last_corruption_check_epoch),
  }),
];

/** What the call sends and reads of its target: the DR operation token, how many trees get series. */
interface MerkleCall extends SecretsAuth {
  operationToken(): Promise<string>;
  readonly target: { readonly merkle_check?: { readonly max_trees: number } | undefined };
}

/**
 * The merkle corruption check of a DR secondary: it makes the service walk its trees, so its job has
 * a schedule of its own; the DR operation token goes in the body, never in a header.
 */
export const merkleCheckEndpoint = endpoint({
  id: 'secrets/merkle-check',
  method: 'POST',
  path: '/v1/sys/replication/dr/secondary/merkle-check',
  schema: merkleCheckResponse,
  send: async (c: MerkleCall) => ({
    ...(await c.namespaced()),
    body: { dr_operation_token: await c.operationToken() },
  }),
  read: async (get, c: MerkleCall) => boundTrees((await get()).value.data.merkle_corruption_report, c.target.merkle_check?.max_trees ?? 100),
  needs: 'the DR operation token (merkle_check.dr_operation_token_file)',
  acts: 'start a merkle check on the cluster',
  up: merkleUp,
  bounds: [{ items: 'trees of the corruption report', key: 'merkle_check.max_trees', dropped: 'secrets_merkle_tree_series_dropped' }],
  families: merkleFamilies,
});
