import { z } from 'zod';
import type { UpstreamClient } from '../client.js';
import { parseBody } from '../parse.js';
import { boolish, instant, lenient, statNumber } from '../schema-helpers.js';
import { enveloped, snakeKeys } from './node-answers.js';

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

export const HA_STATUS_ENDPOINT = 'sys/ha-status';

export async function fetchHaStatus(client: UpstreamClient, token: string | undefined, signal: AbortSignal): Promise<HaNode[]> {
  const res = await client.json({ endpoint: HA_STATUS_ENDPOINT, path: '/v1/sys/ha-status', headers: token ? { 'x-secrets-token': token } : {}, signal });
  return parseBody(haStatusResponse, res.body, HA_STATUS_ENDPOINT).nodes;
}
