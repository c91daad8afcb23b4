import { SeriesCap } from '../../metrics/series-cap.js';
import { foldLabelValue } from '../../support/label-value.js';
import { NodeGroups, type NodeKey } from './node-groups.js';

export { NODE_STATUSES, type NodeKey } from './node-groups.js';

/** What the tally reads of a node (as the listing's schema gives it). */
interface AgentNode {
  readonly ID?: string | undefined;
  readonly Name?: string | undefined;
  readonly Datacenter?: string | undefined;
  readonly NodeClass?: string | undefined;
  readonly NodePool?: string | undefined;
  readonly Status: string;
  readonly SchedulingEligibility?: string | undefined;
  readonly Drain?: boolean | undefined;
}

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

/** Each label folded as it is kept, not only where rendered: a node's megabyte pool name costs a label value's length per group kept, not a megabyte. */
const keyOf = (n: AgentNode): NodeKey => ({
  datacenter: foldLabelValue(n.Datacenter ?? ''),
  node_pool: foldLabelValue(n.NodePool ?? ''),
  node_class: foldLabelValue(n.NodeClass ?? ''),
  status: foldLabelValue(n.Status),
  eligibility: foldLabelValue(n.SchedulingEligibility ?? ''),
  drain: n.Drain === undefined ? '' : String(n.Drain),
});

const LOST = new Set(['down', 'disconnected']);

/** The tally's bounds: the target's max_nodes and max_node_groups. */
export interface TallyBounds {
  readonly max_nodes: number;
  readonly max_node_groups: number;
}

/**
 * Takes the nodes one at a time and keeps only what the series need: the counts by key, up to
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

  add(n: AgentNode): void {
    const key = keyOf(n);
    this.groups.add(key);
    if (n.Status !== 'ready' || n.Drain === true) {
      this.cap.offer({ ...key, node: foldLabelValue(n.Name ?? n.ID ?? ''), node_id: foldLabelValue(n.ID ?? '') });
    }
  }

  listing(pages: number): NodesListing {
    return { counts: this.groups.counts(), groupsDropped: this.groups.dropped, watched: this.cap.kept(), dropped: this.cap.dropped, pages };
  }
}
