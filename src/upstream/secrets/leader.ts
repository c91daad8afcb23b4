import { z } from 'zod';
import type { UpstreamClient } from '../client.js';
import { parseBody } from '../parse.js';
import { boolish, lenient } from '../schema-helpers.js';
import { enveloped } from './node-answers.js';

/**
 * `GET /v1/sys/leader`: whether HA is on and which node leads (its API address). Unauthenticated.
 * `ha_enabled` is essential: without it the answer says nothing; the address costs only the active
 * node's series (an empty one while an election runs).
 */
export const leaderResponse = enveloped(
  'ha_enabled',
  z.object({
    ha_enabled: boolish,
    is_self: lenient(boolish),
    leader_address: lenient(z.string()).transform((v) => v || undefined),
    leader_cluster_address: lenient(z.string()).transform((v) => v || undefined),
  }),
);
export type Leader = z.output<typeof leaderResponse>;

export const LEADER_ENDPOINT = 'sys/leader';

export async function fetchLeader(client: UpstreamClient, signal: AbortSignal): Promise<Leader> {
  const res = await client.json({ endpoint: LEADER_ENDPOINT, path: '/v1/sys/leader', signal });
  return parseBody(leaderResponse, res.body, LEADER_ENDPOINT);
}
