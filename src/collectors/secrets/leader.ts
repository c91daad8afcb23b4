import { z } from 'zod';
import { upFamily } from '../../metrics/family.js';
import { boolish, lenient } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';
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

export const leaderUp = upFamily({
  name: 'secrets_leader_up',
  help: "1 when the last sys/leader poll of the cluster's configured address succeeded and parsed, else 0.",
  section: 'secrets',
  labels: ['target'],
});

/** Which node leads, by its API address: the active node where the HA status does not say it (its series are the node poll's, derived across its answers). */
export const leaderEndpoint = endpoint({
  id: 'secrets/leader',
  method: 'GET',
  path: '/v1/sys/leader',
  schema: leaderResponse,
  needs: 'none: unauthenticated per the API',
  up: leaderUp,
  families: [],
});
