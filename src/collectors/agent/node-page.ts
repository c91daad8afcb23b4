import { foldLabelValue } from '../../support/label-value.js';
import type { NodeKey } from './node-groups.js';

/** What the listing reads of a node (as the page's schema gives it). */
export interface ListedNode {
  readonly ID?: string | undefined;
  readonly Name?: string | undefined;
  readonly Datacenter?: string | undefined;
  readonly NodeClass?: string | undefined;
  readonly NodePool?: string | undefined;
  readonly Status: string;
  readonly SchedulingEligibility?: string | undefined;
  readonly Drain?: boolean | undefined;
}

/** A node of a page that gets series of its own (not ready, or draining): its key's index in the page's keys, and its names. */
export interface PageWatched {
  readonly key: number;
  readonly node: string;
  readonly node_id: string;
}

/**
 * What the node tally keeps of one page, and all it keeps: the page's combinations of labels (in the
 * order they first appear), its nodes as runs of one combination in a row (pairs of the key's index
 * and the run's length, so the tally counts them in the page's order, as it would node by node), and
 * the nodes not ready or draining. Made where the page is decoded (a worker thread for a large page),
 * it is what is cloned back and what the target's memo holds between listings: a page of 500 ready
 * nodes in a few pools is a few keys and one small typed array, not 500 objects.
 */
export interface NodesPage {
  readonly keys: readonly NodeKey[];
  readonly runs: Int32Array;
  readonly watched: readonly PageWatched[];
  readonly nodes: number;
}

/** Each label folded as it is kept, not only where rendered: a node's megabyte pool name costs a label value's length per group kept, not a megabyte. */
export const keyOf = (n: ListedNode): NodeKey => ({
  datacenter: foldLabelValue(n.Datacenter ?? ''),
  node_pool: foldLabelValue(n.NodePool ?? ''),
  node_class: foldLabelValue(n.NodeClass ?? ''),
  status: foldLabelValue(n.Status),
  eligibility: foldLabelValue(n.SchedulingEligibility ?? ''),
  drain: n.Drain === undefined ? '' : String(n.Drain),
});

/** Whether a node gets series of its own: it is not ready, or it drains. */
export const watchedNode = (n: ListedNode): boolean => n.Status !== 'ready' || n.Drain === true;

const keyText = (k: NodeKey) => JSON.stringify([k.datacenter, k.node_pool, k.node_class, k.status, k.eligibility, k.drain]);

/** The page's nodes as the tally keeps them (see `NodesPage`). Pure, so that it runs on a worker thread with the decoding. */
export function summarisePage(nodes: readonly ListedNode[]): NodesPage {
  const index = new Map<string, number>();
  const keys: NodeKey[] = [];
  const runs: number[] = [];
  const watched: PageWatched[] = [];
  for (const n of nodes) {
    const key = keyOf(n);
    const text = keyText(key);
    let k = index.get(text);
    if (k === undefined) {
      k = keys.push(key) - 1;
      index.set(text, k);
    }
    if (runs.length > 0 && runs[runs.length - 2] === k) runs[runs.length - 1]! += 1;
    else runs.push(k, 1);
    if (watchedNode(n)) watched.push({ key: k, node: foldLabelValue(n.Name ?? n.ID ?? ''), node_id: foldLabelValue(n.ID ?? '') });
  }
  return { keys, runs: Int32Array.from(runs), watched, nodes: nodes.length };
}
