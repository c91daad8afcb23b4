import { hostIp, stableUuid } from './identity.js';
import type { AgentProfile } from './profiles.js';

/**
 * The client nodes of one region, as the servers know them from the clients' heartbeats: every agent
 * of the region answers `/v1/nodes` from the same fleet. Generated nodes are `client-N.<region>`,
 * spread over the fleet's node pools and datacenters in turn; IDs are stable, and the listing is in
 * ID order, as the real servers page it.
 */
export const NODE_STATUSES = ['ready', 'initializing', 'down', 'disconnected'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

export interface FleetSpec {
  /** Client nodes of the region. */
  count: number;
  /** Node pools the nodes are spread over, in turn. */
  pools?: readonly string[];
  datacenters?: readonly string[];
  classes?: readonly string[];
}

export interface SimNode {
  ID: string;
  Name: string;
  Datacenter: string;
  NodeClass: string;
  NodePool: string;
  Address: string;
  Status: NodeStatus;
  StatusDescription: string;
  SchedulingEligibility: 'eligible' | 'ineligible';
  Drain: boolean;
  Version: string;
}

export const FLEET_DEFAULTS = { count: 4, pools: ['default'], datacenters: ['dc1'], classes: [''] } as const;

/** The settable fields of a node (admin API). */
export interface NodeChange {
  status?: NodeStatus;
  drain?: boolean;
  eligibility?: 'eligible' | 'ineligible';
}

export class NodeFleet {
  private nodes: SimNode[] = [];

  constructor(
    readonly region: string,
    private readonly spec: FleetSpec,
    private readonly version: string,
  ) {
    this.resize(spec.count);
  }

  resize(count: number): void {
    const pick = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;
    const { pools = FLEET_DEFAULTS.pools, datacenters = FLEET_DEFAULTS.datacenters, classes = FLEET_DEFAULTS.classes } = this.spec;
    const kept = this.nodes.slice(0, count);
    for (let i = kept.length; i < count; i++) {
      const name = `client-${i + 1}.${this.region}`;
      kept.push({
        ID: stableUuid(`node:${name}`),
        Name: name,
        Datacenter: pick(datacenters, i),
        NodeClass: pick(classes, i),
        NodePool: pick(pools, i),
        Address: hostIp(100_000 + i),
        Status: 'ready',
        StatusDescription: '',
        SchedulingEligibility: 'eligible',
        Drain: false,
        Version: this.version,
      });
    }
    this.nodes = kept.sort((a, b) => (a.ID < b.ID ? -1 : 1));
  }

  /** Changes the nodes `match` selects; returns how many. */
  change(match: (n: SimNode) => boolean, c: NodeChange): number {
    let n = 0;
    for (const node of this.nodes) {
      if (!match(node)) continue;
      n++;
      if (c.status) node.Status = c.status;
      if (c.drain !== undefined) {
        node.Drain = c.drain;
        // Draining makes a node ineligible, as the real servers do.
        if (c.drain) node.SchedulingEligibility = 'ineligible';
      }
      if (c.eligibility) node.SchedulingEligibility = c.eligibility;
    }
    return n;
  }

  /** Takes the first `share` (0-1) of a pool's nodes down (or `count` of them): a pool losing clients. */
  takeDown(pool: string | undefined, how: { share?: number; count?: number }, status: NodeStatus = 'down'): number {
    const inPool = this.nodes.filter((n) => pool === undefined || n.NodePool === pool);
    const count = how.count ?? Math.round((how.share ?? 0) * inPool.length);
    const down = new Set(inPool.slice(0, count));
    return this.change((n) => down.has(n), { status });
  }

  /** Every node ready, eligible and not draining again. */
  reset(): void {
    this.change(() => true, { status: 'ready', drain: false, eligibility: 'eligible' });
  }

  counts(): Record<string, number> {
    const out: Record<string, number> = Object.fromEntries(NODE_STATUSES.map((s) => [s, 0]));
    for (const n of this.nodes) out[n.Status] = (out[n.Status] ?? 0) + 1;
    return out;
  }

  find(id: string): SimNode | undefined {
    return this.nodes.find((n) => n.ID === id || n.Name === id);
  }

  /**
   * One page of the listing: `perPage` nodes (0: all) from the node whose ID is `nextToken`, and the
   * token of the page after it. An agent of the 0.x profile knows no node pools.
   */
  page(perPage: number, nextToken: string | undefined, profile: AgentProfile): { nodes: unknown[]; next: string | undefined } {
    const from = nextToken ? this.nodes.findIndex((n) => n.ID >= nextToken) : 0;
    const start = from < 0 ? this.nodes.length : from;
    const end = perPage > 0 ? Math.min(this.nodes.length, start + perPage) : this.nodes.length;
    const nodes = this.nodes.slice(start, end).map((n) => (profile === 'current' ? n : withoutPool(n)));
    return { nodes, next: this.nodes[end]?.ID };
  }
}

function withoutPool(n: SimNode): Omit<SimNode, 'NodePool'> {
  const { NodePool: _pool, ...rest } = n;
  return rest;
}
