import { z } from 'zod';
import { family, single, type Family } from '../../metrics/family.js';
import { decode } from '../../upstream/decode.js';
import { UpstreamError } from '../../upstream/errors.js';
import { parseBody, textOf } from '../../upstream/parse.js';
import { boolish, lenient } from '../../upstream/schema-helpers.js';
import { offloaded, type Get } from '../endpoint.js';
import { nextTokenPages } from './next-token-pages.js';
import type { AgentAuth } from './auth.js';
import { summarisePage, type NodesPage } from './node-page.js';
import { NodeTally, type NodesListing, type TallyBounds, type WatchedNode } from './node-tally.js';
import { optional } from './optional.js';

/**
 * `GET /v1/nodes`: one page of the cluster's client nodes (node stubs), forwarded to the servers by
 * any agent. A node's status is essential (it cannot be counted without it); every other field
 * costs only the series it feeds. `NodePool` came with 1.6: older servers leave it out.
 */
const text = lenient(z.string());

export const agentNode = z.object({
  ID: text,
  Name: text,
  Datacenter: text,
  NodeClass: text,
  NodePool: text,
  Status: z.string(),
  SchedulingEligibility: text,
  Drain: lenient(boolish),
  Version: text,
});

export const agentNodesPage = z
  .array(agentNode)
  .nullish()
  .transform((v) => v ?? []);

export type AgentNode = z.output<typeof agentNode>;

/** One page as received, and what reading it needs: which page it is, and the per_page asked for. */
export interface NodesPageInput {
  body: Uint8Array;
  page: number;
  perPage: number;
}

/**
 * An answer is bounded by what was asked: a page holding more nodes than per_page (a server that
 * ignores paging, or a hostile one) is refused before any node of it is read. Returns what the
 * listing keeps of the page (`NodesPage`), not its nodes. Pure, so that a large page is decoded on
 * a worker thread.
 */
export function decodeNodesPage({ body, page, perPage }: NodesPageInput): NodesPage {
  const doc = decode(textOf(body), nodesEndpoint.id);
  if (Array.isArray(doc) && doc.length > perPage) {
    throw new UpstreamError('too_large', `${nodesEndpoint.id}: page ${page} holds ${doc.length} nodes, more than the per_page of ${perPage} asked for`);
  }
  return summarisePage(parseBody(agentNodesPage, doc, nodesEndpoint.id));
}

/**
 * Every client node of the agent's region, page by page, each node handed to `tally` as its page
 * arrives (see `nextTokenPages`). Returns the pages fetched.
 */
export function listNodes(
  get: Get<NodesPage>,
  t: { node_page_size: number; max_node_pages: number },
  tally: { addPage(page: NodesPage): void },
): Promise<number> {
  return nextTokenPages(get, { id: nodesEndpoint.id, pageSize: t.node_page_size, maxPages: t.max_node_pages, maxPagesKey: 'max_node_pages' }, (page) =>
    tally.addPage(page),
  );
}

/**
 * `/v1/nodes`: the client nodes of the agent's region, read page by page. A fleet of any size costs
 * its counts (one series per combination of datacenter, pool, class, status, eligibility and drain,
 * at most max_node_groups combinations but status) and at most max_nodes nodes with series of their own.
 */

const FROM_NODES = 'from a scheduled listing of /v1/nodes (every page)';
const KEY = ['datacenter', 'node_pool', 'node_class'] as const;
const NODE = ['target', 'node', 'node_id', ...KEY] as const;

const nodeLabels = (n: WatchedNode) => ({ node: n.node, node_id: n.node_id, datacenter: n.datacenter, node_pool: n.node_pool, node_class: n.node_class });

export const nodesFamilies: readonly Family<NodesListing>[] = [
  family<NodesListing>({
    name: 'scheduler_nodes',
    help: `Client nodes by datacenter, node pool (empty before the API had pools), class, status (ready, initializing, down, disconnected: from the nodes' heartbeats, as the servers report it; each at 0 for a combination seen), scheduling eligibility and drain; at most max_node_groups combinations of the labels but status, those with a node down or disconnected first (the nodes of the others are in scheduler_node_group_series_dropped); ${FROM_NODES}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', ...KEY, 'status', 'eligibility', 'drain'],
    samples: (l) => l.counts.map(({ key, count }) => ({ labels: { ...key }, value: count })),
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
    name: 'scheduler_node_group_series_dropped',
    help: `Client nodes left out of scheduler_nodes because their combination of datacenter, node pool, class, eligibility and drain exceeds max_node_groups (combinations with a node down or disconnected are kept first); ${FROM_NODES}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((l) => l.groupsDropped),
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

/**
 * A page of nodes is decoded on a worker thread from this size on (~200 nodes), and remembered by
 * the target's memo: an unchanged page costs a digest. Both pay only for what the listing keeps of a
 * page (`NodesPage`: its combinations, runs and the nodes not ready or draining), not for its nodes:
 * cloning 500 decoded nodes back cost more than decoding them (20,000 nodes: 300 ms of CPU offloaded
 * against 170 ms in the collection thread), and holding every agent's decoded pages between
 * listings cost about 170 MiB at a million series.
 */
export const NODES_PAGE_OFFLOAD_BYTES = 64 * 1024;

/** What the listing reads of its target's: its paging and its cap. */
interface NodesCall extends AgentAuth {
  readonly target: TallyBounds & { readonly node_page_size: number; readonly max_node_pages: number };
}

/**
 * The region's client nodes, page by page on the target's own `nodes_schedule`: any agent forwards the
 * listing to its servers, so one or two agents of a region are enough to switch it on for.
 */
export const nodesEndpoint = optional('nodes', {
  path: '/v1/nodes',
  schema: agentNodesPage,
  paged: '`per_page` (node_page_size), then the `next_token` header, up to max_node_pages',
  offload: offloaded({
    task: decodeNodesPage,
    from: NODES_PAGE_OFFLOAD_BYTES,
    input: (body, c: NodesCall, _item, sent): NodesPageInput => ({ body, page: sent.page ?? 1, perPage: c.target.node_page_size }),
  }),
  read: async (get, c: NodesCall): Promise<NodesListing> => {
    const tally = new NodeTally(c.target);
    return tally.listing(await listNodes(get, c.target, tally));
  },
  families: nodesFamilies,
  bounds: [
    { items: 'nodes not ready or draining', key: 'max_nodes', dropped: 'scheduler_node_series_dropped' },
    { items: 'combinations of datacenter, pool, class, eligibility and drain', key: 'max_node_groups', dropped: 'scheduler_node_group_series_dropped' },
  ],
  needs: 'node:read',
  // Refused for want of node:read: the token is not meant to see the nodes, so the listing does not apply rather than fails.
  notApplicable: { test: (err) => err.status === 403, means: 'the token may not read nodes (403 without node:read)' },
  default: true,
  help: 'the client nodes of the region (node:read, as members needs): counts by datacenter, pool, class, status, eligibility and drain up to max_node_groups combinations, and a series per node not ready or draining up to max_nodes; one request per node_page_size nodes on nodes_schedule',
});
