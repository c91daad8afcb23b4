import type { PartOutcome } from '../../jobs/part.js';
import type { UpstreamError } from '../../upstream/errors.js';
import type { AutopilotView } from './raft-autopilot-answer.js';
import type { Leader } from './leader.js';
import { MAX_NODES, pollable, withoutTrailingSlash, type NodeAddressing } from './node-addresses.js';
import { foldLabelValue } from '../../support/label-value.js';
import type { HaView } from './ha-status.js';

/**
 * Which nodes vigil polls for one cluster, and where the list came from: the target's own list, the
 * HA status's nodes, the raft servers autopilot knows, or else the configured address alone, with
 * the reason the lists could not be read. Pure: the job hands it the parts it collected.
 */
export const DISCOVERY_SOURCES = ['ha_status', 'autopilot', 'configured', 'address_only'] as const;
export type DiscoverySource = (typeof DISCOVERY_SOURCES)[number];
export type DiscoveryReason = '' | 'forbidden' | 'not_found' | 'unsupported' | 'error';

export interface Discovery {
  source: DiscoverySource;
  reason: DiscoveryReason;
  nodes: string[];
  /** API address to raft server id, for the nodes polled for a raft server autopilot lists: how their name is found. */
  raftIds?: ReadonlyMap<string, string>;
}

/** Why an answer gave no node list, in the fixed words of `secrets_node_discovery_info`. */
export function discoveryReason(o: PartOutcome | undefined): DiscoveryReason {
  const err: UpstreamError | undefined = o?.error ?? o?.refusal;
  if (!err) return o?.value === undefined ? 'error' : 'unsupported';
  if (err.status === 403) return 'forbidden';
  if (err.status === 404) return 'not_found';
  if (err.status === 400 || err.status === 405 || err.status === 501) return 'unsupported';
  return 'error';
}

const distinct = (list: Array<string | undefined>, max: number): string[] => [...new Set(list.filter((a): a is string => a !== undefined))].slice(0, max);

export interface DiscoveryInput {
  /** The target's `nodes.addresses`, when it lists them. */
  configured?: readonly string[] | undefined;
  address: string;
  addressing: NodeAddressing;
  ha: PartOutcome<HaView>;
  autopilot: PartOutcome<AutopilotView>;
  /** Raft address to node, as earlier HA statuses paired them: a node that stopped echoing keeps its name. */
  known: Map<string, string>;
  /** Nodes are addressed by the target's template: no address is learned from the answers. */
  templated?: boolean;
  /** Nodes polled at most (nodes.max_nodes; MAX_NODES when not said). */
  max?: number;
}

/** A raft (cluster) address as both answers can be compared by: `host:port`, without scheme or slash. */
export const raftKey = (address: string | undefined): string | undefined =>
  address ? withoutTrailingSlash(address.replace(/^[a-z]+:\/\//i, '')).toLowerCase() || undefined : undefined;

const hostPort = (address: string | undefined): { host: string; port: number } | undefined => {
  const key = raftKey(address);
  const m = key ? /^(.*):(\d+)$/.exec(key) : null;
  return m ? { host: m[1]!, port: Number(m[2]) } : undefined;
};

/**
 * How this cluster's nodes' API addresses follow from their raft addresses, learned from the nodes
 * the HA status pairs: the same host, and the same port offset (8200 beside 8201) or the same API
 * port, on every one of them. A raft server no HA status ever paired (sealed since before vigil
 * looked) is then polled where its API should be; without a rule that every pair keeps, none.
 */
function apiOfRaft(nodes: HaView['nodes']): ((address: string | undefined) => string | undefined) | undefined {
  const pairs = nodes.flatMap((n) => {
    const raft = hostPort(n.cluster_address);
    const api = n.node ? new URL(n.node) : undefined;
    return raft && api && api.hostname.toLowerCase() === raft.host ? [{ raft, api }] : [];
  });
  const port = (u: URL) => Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const offsets = new Set(pairs.map((p) => port(p.api) - p.raft.port));
  const ports = new Set(pairs.map((p) => port(p.api)));
  const first = pairs[0]?.api;
  if (!first || pairs.length < nodes.filter((n) => n.node).length || (offsets.size !== 1 && ports.size !== 1)) return undefined;
  return (address) => {
    const raft = hostPort(address);
    if (!raft) return undefined;
    const u = new URL(first.href);
    u.hostname = raft.host;
    u.port = String(offsets.size === 1 ? raft.port + [...offsets][0]! : [...ports][0]!);
    return pollable(u.href);
  };
}

/**
 * The HA status lists only the nodes that echo to the active one now; autopilot lists every raft
 * server, a dead or sealed one included. Both together, a server named as the HA status paired it
 * (now, or in an earlier poll: `known` learns the pairs), so a node that stops answering stays
 * polled, and is seen down, until it leaves the raft cluster.
 */
export function discover(i: DiscoveryInput): Discovery {
  const max = i.max ?? MAX_NODES;
  if (i.configured?.length) return { source: 'configured', reason: '', nodes: distinct(i.configured.map(withoutTrailingSlash), max) };
  const haNodes = i.ha.value?.nodes ?? [];
  for (const n of haNodes) {
    const key = raftKey(n.cluster_address);
    if (key && n.node) {
      if (!i.known.has(key) && i.known.size >= max * 4) i.known.clear();
      i.known.set(key, n.node);
    }
  }
  const servers = Object.entries(i.autopilot.value?.servers ?? {});
  const learned = i.templated ? undefined : apiOfRaft(haNodes);
  const raftIds = new Map<string, string>();
  const fromRaft = servers.map(([id, s]) => {
    const at = i.known.get(raftKey(s.address) ?? '') ?? learned?.(s.address) ?? i.addressing({ hostname: s.name ?? s.id, address: s.address }, 'cluster');
    if (at !== undefined && !raftIds.has(at)) raftIds.set(at, id);
    return at;
  });
  const fromHa = distinct(
    haNodes.map((n) => n.node),
    max,
  );
  if (fromHa.length) return { source: 'ha_status', reason: '', nodes: distinct([...fromHa, ...fromRaft], max), raftIds };
  const raft = distinct(fromRaft, max);
  if (raft.length) return { source: 'autopilot', reason: '', nodes: raft, raftIds };
  return { source: 'address_only', reason: discoveryReason(i.ha), nodes: [withoutTrailingSlash(i.address)] };
}

/**
 * While the lists cannot be read for an error (an election under way, the configured address
 * down), the nodes read last stay polled, under the source they came from and the reason: an
 * election must not make the standbys vanish. A refusal (403, 404) is an answer: it is taken as it is.
 */
export function orLast(d: Discovery, last: Discovery | undefined): Discovery {
  if (d.source !== 'address_only' || d.reason !== 'error' || !last || (last.source !== 'ha_status' && last.source !== 'autopilot')) return d;
  return { source: last.source, reason: 'error', nodes: last.nodes };
}

/**
 * The node the cluster reports active: the HA status's active node, else the leader's API address
 * (as the node polled at it is named, or as advertised when no polled node has it). A leader that
 * answers the configured address `is_self` is the node polled there, when it is polled (the address
 * alone, a DR secondary's): the active node is then that node's row, not an address nothing polls.
 */
export function activeNode(ha: HaView | undefined, leader: Leader | undefined, discovered: readonly string[], configured?: string): string | undefined {
  const fromHa = ha?.nodes.find((n) => n.active_node === true);
  if (fromHa?.node) return fromHa.node;
  const address = leader?.ha_enabled === false ? undefined : leader?.leader_address;
  if (!address) return undefined;
  const advertised = withoutTrailingSlash(address);
  const named = ha?.nodes.find((n) => n.api_address && withoutTrailingSlash(n.api_address) === advertised)?.node;
  // A label value: an address no node could have is folded, not exported by the megabyte.
  const self = leader?.is_self === true && configured !== undefined ? discovered.find((d) => d === withoutTrailingSlash(configured)) : undefined;
  return named ?? discovered.find((d) => d === advertised) ?? self ?? foldLabelValue(advertised);
}
