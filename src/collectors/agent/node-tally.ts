import { SeriesCap } from '../../metrics/series-cap.js';

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

/** The statuses the API reports from client heartbeats; always counted, so a pool with none down says 0. */
export const NODE_STATUSES = ['ready', 'initializing', 'down', 'disconnected'] as const;

/** The labels a node is counted under (empty when its answer leaves the field out). */
export interface NodeKey {
  datacenter: string;
  node_pool: string;
  node_class: string;
  status: string;
  eligibility: string;
  drain: string;
}

/** A node that gets series of its own: one that is not ready, or drains. */
export interface WatchedNode extends NodeKey {
  node: string;
  node_id: string;
}

/** One listing of the client nodes, counted as its pages arrived. */
export interface NodesListing {
  /** Nodes by every combination of key labels seen (and 0 for each status a seen pool and datacenter lacks). */
  readonly counts: ReadonlyMap<string, { key: NodeKey; count: number }>;
  /** Nodes with series of their own: at most max_nodes, down and disconnected first. */
  readonly watched: readonly WatchedNode[];
  /** Nodes that are not ready or drain, beyond max_nodes. */
  readonly dropped: number;
  readonly pages: number;
}

const keyOf = (n: AgentNode): NodeKey => ({
  datacenter: n.Datacenter ?? '',
  node_pool: n.NodePool ?? '',
  node_class: n.NodeClass ?? '',
  status: n.Status,
  eligibility: n.SchedulingEligibility ?? '',
  drain: n.Drain === undefined ? '' : String(n.Drain),
});

const LOST = new Set(['down', 'disconnected']);

/**
 * Takes the nodes one at a time and keeps only what the series need: the counts by key, and the
 * nodes that need attention up to max_nodes. A fleet of any size costs its distinct keys and
 * max_nodes nodes, not a list of every node.
 */
export class NodeTally {
  private readonly counts = new Map<string, { key: NodeKey; count: number }>();
  private readonly cap: SeriesCap<WatchedNode>;

  constructor(maxNodes: number) {
    this.cap = new SeriesCap<WatchedNode>(maxNodes, (n) => LOST.has(n.status));
  }

  add(n: AgentNode): void {
    const key = keyOf(n);
    this.bump(key, 1);
    if (n.Status !== 'ready' || n.Drain === true) this.cap.offer({ ...key, node: n.Name ?? n.ID ?? '', node_id: n.ID ?? '' });
  }

  private bump(key: NodeKey, by: number): void {
    const k = JSON.stringify(key);
    const c = this.counts.get(k);
    if (c) c.count += by;
    else this.counts.set(k, { key, count: by });
  }

  listing(pages: number): NodesListing {
    // Every known status of each pool and datacenter seen, so "none down" is 0, not absent.
    for (const { key } of [...this.counts.values()]) for (const status of NODE_STATUSES) this.bump({ ...key, status }, 0);
    return { counts: this.counts, watched: this.cap.kept(), dropped: this.cap.dropped, pages };
  }
}
