import { SeriesCap } from '../../metrics/series-cap.js';
import { NodeGroups, type NodeKey } from './node-groups.js';
import { summarisePage, type ListedNode, type NodesPage } from './node-page.js';

export { NODE_STATUSES, type NodeKey } from './node-groups.js';

/** A node that gets series of its own: one that is not ready, or drains. */
export interface WatchedNode extends NodeKey {
  node: string;
  node_id: string;
}

/** One listing of the client nodes, counted as its pages arrived. */
export interface NodesListing {
  /** Nodes by combination of key labels, at most max_node_groups combinations (each with every status, 0 where it has none). */
  readonly counts: ReadonlyArray<{ key: NodeKey; count: number }>;
  /** Nodes left out of the counts: their combination was past max_node_groups. */
  readonly groupsDropped: number;
  /** Nodes with series of their own: at most max_nodes, down and disconnected first. */
  readonly watched: readonly WatchedNode[];
  /** Nodes that are not ready or drain, beyond max_nodes. */
  readonly dropped: number;
  readonly pages: number;
}

const LOST = new Set(['down', 'disconnected']);

/** The tally's bounds: the target's max_nodes and max_node_groups. */
export interface TallyBounds {
  readonly max_nodes: number;
  readonly max_node_groups: number;
}

/**
 * Takes the nodes a page at a time and keeps only what the series need: the counts by key, up to
 * max_node_groups combinations, and the nodes that need attention up to max_nodes. A fleet of any
 * size, in any number of pools, costs those bounds, not a list of every node or of every pool.
 */
export class NodeTally {
  private readonly groups: NodeGroups;
  private readonly cap: SeriesCap<WatchedNode>;

  constructor(bounds: TallyBounds) {
    this.groups = new NodeGroups(bounds.max_node_groups);
    this.cap = new SeriesCap<WatchedNode>(bounds.max_nodes, (n) => LOST.has(n.status));
  }

  /** One node, as a page of its own. */
  add(n: ListedNode): void {
    this.addPage(summarisePage([n]));
  }

  /** A page's nodes in its order, from what was kept of it (`summarisePage`): the same counts as taking them one at a time. */
  addPage(page: NodesPage): void {
    const { keys, runs } = page;
    for (let i = 0; i < runs.length; i += 2) this.groups.add(keys[runs[i]!]!, runs[i + 1]);
    for (const w of page.watched) this.cap.offer({ ...keys[w.key]!, node: w.node, node_id: w.node_id });
  }

  listing(pages: number): NodesListing {
    return { counts: this.groups.counts(), groupsDropped: this.groups.dropped, watched: this.cap.kept(), dropped: this.cap.dropped, pages };
  }
}
