import { family, single, type Family } from '../../metrics/family.js';
import type { NodesListing, WatchedNode } from './node-tally.js';

/**
 * `/v1/nodes`: the client nodes of the agent's region, read page by page. A fleet of any size costs
 * its counts (one series per combination of datacenter, pool, class, status, eligibility and drain)
 * and at most max_nodes nodes with series of their own.
 */

const FROM_NODES = 'from a scheduled listing of /v1/nodes (every page)';
const KEY = ['datacenter', 'node_pool', 'node_class'] as const;
const NODE = ['target', 'node', 'node_id', ...KEY] as const;

const nodeLabels = (n: WatchedNode) => ({ node: n.node, node_id: n.node_id, datacenter: n.datacenter, node_pool: n.node_pool, node_class: n.node_class });

export const nodesFamilies: readonly Family<NodesListing>[] = [
  family<NodesListing>({
    name: 'scheduler_nodes',
    help: `Client nodes by datacenter, node pool (empty before the API had pools), class, status (ready, initializing, down, disconnected: from the nodes' heartbeats, as the servers report it; each at 0 for a combination seen), scheduling eligibility and drain; ${FROM_NODES}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', ...KEY, 'status', 'eligibility', 'drain'],
    samples: (l) => [...l.counts.values()].map(({ key, count }) => ({ labels: { ...key }, value: count })),
  }),
  family<NodesListing>({
    name: 'scheduler_node_status',
    help: `1 for each client node that is not ready, with its status and scheduling eligibility (a node drained before it went down, as a scale-in does, is ineligible); at most max_nodes nodes (with those that drain), down and disconnected first; ${FROM_NODES}.`,
    type: 'gauge',
    section: 'agent',
    labels: [...NODE, 'status', 'eligibility'],
    samples: (l) =>
      l.watched.flatMap((n) => (n.status === 'ready' ? [] : [{ labels: { ...nodeLabels(n), status: n.status, eligibility: n.eligibility }, value: 1 }])),
  }),
  family<NodesListing>({
    name: 'scheduler_node_draining',
    help: `1 for each client node that drains; at most max_nodes nodes (with those that are not ready); ${FROM_NODES}.`,
    type: 'gauge',
    section: 'agent',
    labels: [...NODE],
    samples: (l) => l.watched.flatMap((n) => (n.drain === 'true' ? [{ labels: nodeLabels(n), value: 1 }] : [])),
  }),
  family<NodesListing>({
    name: 'scheduler_node_series_dropped',
    help: `Client nodes not ready or draining left without scheduler_node_status and scheduler_node_draining series because they exceed max_nodes (they are in scheduler_nodes); ${FROM_NODES}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((l) => l.dropped),
  }),
  family<NodesListing>({
    name: 'scheduler_nodes_listing_pages',
    help: `Pages the last complete listing of /v1/nodes took (per_page nodes each).`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((l) => l.pages),
  }),
];
