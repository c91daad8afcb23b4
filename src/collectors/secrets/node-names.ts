import { foldLabelValue } from '../../support/label-value.js';
import type { HaView } from './ha-status.js';
import { raftKey } from './node-discovery.js';
import type { AutopilotView } from './raft-autopilot-answer.js';

/**
 * One name per node, whatever answer names it: the raft node ID where the cluster runs integrated
 * storage (autopilot's server id, the `server` label of the raft series), joined to the polled
 * node by its cluster address (the HA status pairs a node's API address with its cluster address;
 * autopilot gives each server's cluster address); else the HA status's `hostname`; else the API
 * address vigil polls. The API address stays a label of its own (`address`): two nodes that report
 * one name stay two series. Pure but for the memory of names, which the caller keeps across runs.
 */

/** What one run of the node poll read: the nodes polled, and the answers that name them. */
export interface NamingInput {
  /** The API addresses polled. */
  readonly nodes: readonly string[];
  readonly ha: HaView | undefined;
  readonly autopilot: AutopilotView | undefined;
  /** API address to raft server id, for the servers discovery polled from autopilot's list. */
  readonly raftIds?: ReadonlyMap<string, string> | undefined;
}

interface Known {
  readonly name: string;
  /** A raft node ID: kept over a hostname while autopilot cannot be read. */
  readonly fromRaft: boolean;
}

/**
 * Names the polled nodes, remembering the last name of each: a run whose autopilot answer is
 * missing (an election, a refusal for a moment) keeps a node's raft ID rather than flip its series
 * to its hostname and back. At most one name is kept per node polled in the run (a node that left
 * is forgotten), so the memory is bounded by nodes.max_nodes.
 */
export class NodeNames {
  private known = new Map<string, Known>();

  name(i: NamingInput): ReadonlyMap<string, string> {
    const serverByKey = new Map<string, string>();
    for (const [id, s] of Object.entries(i.autopilot?.servers ?? {})) {
      const key = raftKey(s.address);
      if (key && !serverByKey.has(key)) serverByKey.set(key, id);
    }
    const haByAddress = new Map((i.ha?.nodes ?? []).flatMap((n) => (n.node ? [[n.node, n] as const] : [])));
    const names = new Map<string, string>();
    const kept = new Map<string, Known>();
    for (const address of i.nodes) {
      const ha = haByAddress.get(address);
      const raft = serverByKey.get(raftKey(ha?.cluster_address) ?? '') ?? i.raftIds?.get(address);
      const last = this.known.get(address);
      const known: Known | undefined = raft
        ? { name: foldLabelValue(raft), fromRaft: true }
        : last?.fromRaft
          ? last
          : ha?.hostname
            ? { name: foldLabelValue(ha.hostname), fromRaft: false }
            : last;
      if (known) kept.set(address, known);
      names.set(address, known?.name ?? address);
    }
    this.known = kept;
    return names;
  }
}

/** A node's labels: its name, and the API address vigil polls it at. */
export const nodeLabels = (names: ReadonlyMap<string, string> | undefined, address: string): { node: string; address: string } => ({
  node: names?.get(address) ?? address,
  address,
});
