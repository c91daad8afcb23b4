import { randomBytes } from 'node:crypto';
import type { CorruptTree, KindState } from './cluster.js';

/** Seconds of 0001-01-01T00:00:00Z: what the service reports when no corruption check ever ran. */
export const NEVER_CHECKED_EPOCH = '-62135596800';

export function corruptionCheckEpoch(state: KindState): string {
  const at = state.lastCorruptionCheck;
  return at ? String(Math.floor(at.getTime() / 1000)) : NEVER_CHECKED_EPOCH;
}

export interface CorruptionRequest {
  tree?: string;
  treeType: CorruptTree['treeType'];
  pages: Map<string, number[]> | null;
  root: boolean;
  subtreeRoot: boolean;
}

export function corrupt(state: KindState, req: CorruptionRequest): void {
  if (req.root) state.corruptRoot = true;
  if (req.tree === undefined) return;
  state.corruptTrees.set(req.tree, {
    treeType: req.treeType,
    pages: req.pages,
    subtreeRoot: req.subtreeRoot,
    rootHash: randomBytes(20).toString('hex'),
  });
}

export function clearCorruption(state: KindState): void {
  state.corruptRoot = false;
  state.corruptTrees.clear();
}

function treeReport(tree: CorruptTree): Record<string, unknown> {
  const pages = tree.pages && Object.fromEntries([...tree.pages].map(([page, subpages]) => [page, { corrupted: true, subpages }]));
  return {
    corrupted_index_tuples_map: pages,
    corrupted_subtree_root: tree.subtreeRoot,
    root_hash: tree.rootHash,
    tree_type: tree.treeType,
  };
}

/** Runs a check (recording when, for the status) and reports what is corrupted. */
export function merkleCheck(state: KindState, now: Date): Record<string, unknown> {
  state.lastCorruptionCheck = now;
  return {
    merkle_corruption_report: {
      corrupted_root: state.corruptRoot,
      corrupted_tree_map: Object.fromEntries([...state.corruptTrees].map(([tree, t]) => [tree, treeReport(t)])),
      last_corruption_check_epoch: now.toISOString(),
    },
  };
}
