import { family, single, type Family } from '../../metrics/family.js';
import type { Discovery } from './node-discovery.js';

/** What one cluster's node poll derives across its answers: the nodes found, the active one, its changes. */
export interface ClusterNodes {
  discovery: Discovery;
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
    help: 'The node the cluster reports active (sys/ha-status active_node, else sys/leader leader_address), value 1; no series while none is.',
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'node'],
    samples: (c) => (c.active === undefined ? [] : [{ labels: { node: c.active }, value: 1 }]),
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
