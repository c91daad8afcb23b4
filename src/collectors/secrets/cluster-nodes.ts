import { family, single, type Family } from '../../metrics/family.js';
import { FROM_HA, type HaNode, type HaView } from './ha-status.js';
import type { Discovery } from './node-discovery.js';

/** What one cluster's node poll derives across its answers: the nodes found and their names, the active one, its changes. */
export interface ClusterNodes {
  discovery: Discovery;
  /** API address to the node's name (node-names.ts). */
  names: ReadonlyMap<string, string>;
  /** The HA status's nodes, when it was read: their echo and clock skew. */
  ha: HaView | undefined;
  /** The active node's API address. */
  active: string | undefined;
  /** Changes of the active node seen across polls, kept across reloads. */
  changes: number;
}

export const discoveryFamilies: readonly Family<ClusterNodes>[] = [
  family<ClusterNodes>({
    name: 'secrets_nodes_discovered',
    help: 'Nodes of the cluster vigil polls at their own address (sys/health), from the source secrets_node_discovery_info names.',
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((c) => c.discovery.nodes.length),
  }),
  family<ClusterNodes>({
    name: 'secrets_node_discovery_info',
    help: 'Where the polled nodes came from (source: ha_status, autopilot, configured, address_only), value 1; reason is empty when the list was read, else why the cluster is watched through its configured address only (forbidden, not_found, unsupported, error).',
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'source', 'reason'],
    samples: (c) => [{ labels: { source: c.discovery.source, reason: c.discovery.reason }, value: 1 }],
  }),
];

export const activeNodeFamilies: readonly Family<ClusterNodes>[] = [
  family<ClusterNodes>({
    name: 'secrets_active_node_info',
    help: "The node the cluster reports active (sys/ha-status active_node, else sys/leader leader_address), by its name and API address as the node's own series have them, value 1; no series while none is.",
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'node', 'address'],
    samples: (c) => (c.active === undefined ? [] : [{ labels: labelsOf(c, c.active, c.ha?.nodes.find((n) => n.node === c.active)?.hostname), value: 1 }]),
  }),
  family<ClusterNodes>({
    name: 'secrets_active_node_changes_total',
    help: 'Changes of the active node seen between two scheduled node polls since vigil started (the first sighting is not a change); kept across reloads.',
    type: 'counter',
    section: 'secrets',
    labels: ['target'],
    samples: single((c) => c.changes),
  }),
];

/**
 * A node's labels: its name (node-names.ts) and its API address. A node the HA status names that
 * vigil does not poll (a listed cluster's other nodes) goes by its hostname, as the rule has it.
 */
const labelsOf = (c: ClusterNodes, address: string, hostname: string | undefined): { node: string; address: string } => ({
  node: c.names.get(address) ?? hostname ?? address,
  address,
});

const perHaNode = (value: (n: HaNode) => number | undefined) => (c: ClusterNodes) =>
  (c.ha?.nodes ?? []).flatMap((n) => {
    const x = value(n);
    return n.node === undefined || x === undefined ? [] : [{ labels: labelsOf(c, n.node, n.hostname), value: x }];
  });

/** What the HA status says of each node it names, under the node's name (node-names.ts): read with the run's other answers. */
export const haNodeFamilies: readonly Family<ClusterNodes>[] = [
  family<ClusterNodes>({
    name: 'secrets_node_clock_skew_seconds',
    help: `How far the node's clock is off the active node's (clock_skew_ms, 1.16+), in seconds; ${FROM_HA}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'node', 'address'],
    samples: perHaNode((n) => (n.clock_skew_ms === undefined ? undefined : n.clock_skew_ms / 1000)),
  }),
  family<ClusterNodes>({
    name: 'secrets_node_last_echo_timestamp_seconds',
    help: `When the active node last heard the node's echo, as Unix time (none for the active node itself); ${FROM_HA}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'node', 'address'],
    samples: perHaNode((n) => n.last_echo),
  }),
];

/** Counts changes of one cluster's active node across polls: a poll that sees none keeps the last. */
export class ActiveNodeChanges {
  private readonly last = new Map<string, { node?: string; changes: number }>();

  see(target: string, active: string | undefined): number {
    const seen = this.last.get(target) ?? { changes: 0 };
    if (active !== undefined) {
      if (seen.node !== undefined && seen.node !== active) seen.changes += 1;
      seen.node = active;
    }
    this.last.set(target, seen);
    return seen.changes;
  }

  forgetTargetsExcept(names: ReadonlySet<string>): void {
    for (const t of this.last.keys()) if (!names.has(t)) this.last.delete(t);
  }
}
