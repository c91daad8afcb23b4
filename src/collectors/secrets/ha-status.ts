import { z } from 'zod';
import { family, single, upFamily, type Family } from '../../metrics/family.js';
import { SeriesCap } from '../../metrics/series-cap.js';
import { foldLabelValue } from '../../support/label-value.js';
import { boolish, instant, lenient, statNumber } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';
import type { SecretsAuth } from './auth.js';
import { MAX_ADDRESS_BYTES, MAX_NODES, type NodeAddressing } from './node-addresses.js';
import { enveloped, refusedOrMissing, snakeKeys } from './node-answers.js';

/**
 * `GET /v1/sys/ha-status` (1.10+): every node the active node has heard from, with its API address.
 * Needs read on sys/ha-status, in the root namespace. The list is essential (it is what the answer
 * is for); each node's fields cost only their own series, and a node without an API address cannot
 * be polled but is still counted where the answer names it active.
 */
const text = lenient(z.string());
const haNode = z.preprocess(
  snakeKeys,
  z.object({
    hostname: text,
    api_address: text,
    cluster_address: text,
    active_node: lenient(boolish),
    // null on the active node: it echoes to nobody.
    last_echo: lenient(instant),
    version: text,
    clock_skew_ms: statNumber,
    echo_duration_ms: statNumber,
  }),
);

export const haStatusResponse = enveloped('nodes', z.object({ nodes: z.array(haNode) }));
export type HaNode = z.output<typeof haNode>;

/** The HA status's node list, each node named as vigil polls it: what the job discovers nodes from, and their echo and clock skew. */
export interface HaView {
  /** At most nodes.max_nodes, the active node first, their text folded to a label value's length. */
  nodes: Array<HaNode & { node: string | undefined }>;
  /** Nodes the answer named beyond nodes.max_nodes: neither polled nor given series. */
  dropped: number;
  /** Nodes kept whose API address vigil does not dial (not http or https, credentials, longer than MAX_ADDRESS_BYTES). */
  refused: number;
}

/**
 * The answer's nodes as kept: the active one first, at most `max` (nodes.max_nodes: as many as are polled), each
 * named by the address vigil polls it at (from its text as sent, so an address too long is refused,
 * not cut to one that parses), then its text folded. One pass, constant work per node.
 */
export function haView(nodes: readonly HaNode[], addressing: NodeAddressing, max = MAX_NODES): HaView {
  const cap = new SeriesCap<HaNode>(max, (n) => n.active_node === true);
  for (const n of nodes) cap.offer(n);
  let refused = 0;
  const kept = cap.kept().map((n) => {
    const node = addressing({ hostname: n.hostname, address: n.api_address }, 'api');
    if (node === undefined && n.api_address) refused++;
    const fold = (v: string | undefined) => (v === undefined ? v : foldLabelValue(v));
    return { ...n, hostname: fold(n.hostname), api_address: fold(n.api_address), cluster_address: fold(n.cluster_address), version: fold(n.version), node };
  });
  return { nodes: kept, dropped: cap.dropped, refused };
}

export const FROM_HA = "from sys/ha-status as the cluster's configured address answers it; absent when not reported";

export const haStatusUp = upFamily({
  name: 'secrets_ha_status_up',
  help: "1 when the last sys/ha-status poll of the cluster's configured address succeeded and parsed, else 0; absent when the service refuses it (403: the token lacks read on sys/ha-status) or has no such endpoint (404, before 1.10).",
  section: 'secrets',
  labels: ['target'],
});

export const haStatusFamilies: readonly Family<HaView>[] = [
  family<HaView>({
    name: 'secrets_node_series_dropped',
    help: `Nodes the HA status named beyond the nodes.max_nodes (${MAX_NODES} by default) vigil polls per cluster (the active node kept first): no series of their own, not polled; ${FROM_HA}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((v) => v.dropped),
  }),
  family<HaView>({
    name: 'secrets_node_addresses_refused',
    help: `Nodes the HA status named with an API address vigil does not dial (not http or https, with credentials, or longer than ${MAX_ADDRESS_BYTES} bytes): not polled unless a template or autopilot addresses them; ${FROM_HA}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((v) => v.refused),
  }),
];

/** What the call reads of its target's: how a node's advertised address becomes the one vigil polls. */
type HaCall = SecretsAuth & { readonly addressing: NodeAddressing; readonly target: { readonly nodes: { readonly max_nodes: number } } };

/** The nodes the active node has heard from, with their API addresses: where the node poll finds the nodes. */
export const haStatusEndpoint = endpoint({
  id: 'secrets/ha-status',
  method: 'GET',
  path: '/v1/sys/ha-status',
  schema: haStatusResponse,
  send: (c: HaCall) => c.rooted(),
  read: async (get, c: HaCall): Promise<HaView> => haView((await get()).value.nodes, c.addressing, c.target.nodes.max_nodes),
  needs: 'read on sys/ha-status (root namespace)',
  bounds: [{ items: 'nodes (polled, and given series)', key: 'nodes.max_nodes', dropped: 'secrets_node_series_dropped' }],
  up: haStatusUp,
  families: haStatusFamilies,
  notApplicable: {
    test: refusedOrMissing,
    means:
      'the token may not read sys/ha-status (403), or the service has no such endpoint (404, before 1.10): the nodes come from autopilot, or the configured address alone',
  },
});
