/** The labels a node is counted under (empty when its answer leaves the field out). */
export interface NodeKey {
  datacenter: string;
  node_pool: string;
  node_class: string;
  status: string;
  eligibility: string;
  drain: string;
}

/** The statuses the API reports from client heartbeats; always counted, so a pool with none down says 0. */
export const NODE_STATUSES = ['ready', 'initializing', 'down', 'disconnected'] as const;
const STATUS_INDEX = new Map<string, number>(NODE_STATUSES.map((s, i) => [s, i]));
const LOST = new Set(['down', 'disconnected']);

/** A combination of a node's labels but its status, and its nodes by status. */
interface Group {
  readonly key: NodeKey;
  /** A status none of NODE_STATUSES names: the group is that status's alone, one series. */
  readonly other: boolean;
  /** Nodes by NODE_STATUSES (the one count of an `other` group first). */
  readonly counts: number[];
  /** Holds a node down or disconnected: it is never given up for another group. */
  lost: boolean;
}

/**
 * The counts of scheduler_nodes, bounded: at most `max` combinations of datacenter, pool, class,
 * eligibility and drain (each exported with the four statuses, 0 for those it lacks; a status none
 * of them is a combination of its own, one series), so at most 4 x `max` series however many pools
 * an answer invents. Past the bound a node down or disconnected takes the place of a combination
 * without one (so what pages survives), and every node left out is counted in `dropped`. Constant
 * work per node: a map lookup, and a stack of the groups that may be given up.
 */
export class NodeGroups {
  private readonly kept = new Map<string, Group>();
  /** Groups kept without a lost node, last kept on top; a group that has one since is skipped when popped. */
  private readonly calm: Array<[string, Group]> = [];
  /** Nodes not in the counts: their combination was past `max`, or given up for one with a lost node. */
  dropped = 0;

  constructor(private readonly max: number) {}

  /** `nodes` nodes of one key in a row: the same as adding each in turn. */
  add(key: NodeKey, nodes = 1): void {
    const index = STATUS_INDEX.get(key.status);
    const k = JSON.stringify([key.datacenter, key.node_pool, key.node_class, key.eligibility, key.drain, index === undefined ? key.status : '']);
    const lost = LOST.has(key.status);
    let g = this.kept.get(k);
    if (!g) {
      if (this.kept.size >= this.max && !(lost && this.giveUpCalm())) {
        this.dropped += nodes;
        return;
      }
      g = { key, other: index === undefined, counts: index === undefined ? [0] : NODE_STATUSES.map(() => 0), lost: false };
      this.kept.set(k, g);
      if (!lost) this.calm.push([k, g]);
    }
    g.counts[index ?? 0]! += nodes;
    if (lost) g.lost = true;
  }

  /** Gives up the group without a lost node kept last, its nodes counted as dropped; false when every group has one. */
  private giveUpCalm(): boolean {
    for (let top = this.calm.pop(); top; top = this.calm.pop()) {
      const [k, g] = top;
      if (g.lost) continue;
      this.kept.delete(k);
      this.dropped += g.counts.reduce((a, b) => a + b, 0);
      return true;
    }
    return false;
  }

  /** One count per series: each group's four statuses (or its own one). */
  counts(): Array<{ key: NodeKey; count: number }> {
    return [...this.kept.values()].flatMap((g) =>
      g.other ? [{ key: g.key, count: g.counts[0]! }] : NODE_STATUSES.map((status, i) => ({ key: { ...g.key, status }, count: g.counts[i]! })),
    );
  }
}
