import { z } from 'zod';
import type { UpstreamClient } from '../client.js';
import { UpstreamError } from '../errors.js';
import { parseBody } from '../parse.js';
import { boolish, goDurationSeconds, lenient, numberish } from '../schema-helpers.js';
import { enveloped, snakeKeys } from './node-answers.js';

/**
 * `GET /v1/sys/storage/raft/autopilot/state` (1.7+, integrated storage only): the raft cluster as
 * autopilot sees it. Needs read on the path, in the root namespace. Answered at the top level in the
 * documentation, inside `data` by the servers, in CamelCase by 1.7 and 1.8: all read alike. `servers`
 * is essential (the answer is about them); every other field costs only its own series.
 */
const text = lenient(z.string());
const count = lenient(numberish);
const server = z.preprocess(
  snakeKeys,
  z.object({
    id: text,
    name: text,
    address: text,
    node_status: text,
    last_contact: z
      .unknown()
      .optional()
      .transform((v) => goDurationSeconds(v === '' ? undefined : v)),
    last_term: count,
    last_index: count,
    healthy: lenient(boolish),
    status: text,
    version: text,
    node_type: text,
  }),
);

export const autopilotStateResponse = enveloped(
  'servers',
  z.object({
    healthy: lenient(boolish),
    failure_tolerance: count,
    optimistic_failure_tolerance: count,
    leader: text,
    voters: lenient(z.array(z.string())),
    servers: z.record(z.string(), server),
  }),
);
export type AutopilotState = z.output<typeof autopilotStateResponse>;
export type RaftServer = AutopilotState['servers'][string];

export const AUTOPILOT_ENDPOINT = 'sys/storage/raft/autopilot/state';

export async function fetchAutopilotState(client: UpstreamClient, token: string | undefined, signal: AbortSignal): Promise<AutopilotState> {
  const res = await client.json({
    endpoint: AUTOPILOT_ENDPOINT,
    path: '/v1/sys/storage/raft/autopilot/state',
    headers: token ? { 'x-secrets-token': token } : {},
    signal,
  });
  // Autopilot not running yet (a cluster still forming) answers with no body: nothing to say, not a failure.
  if (res.body === undefined || res.body === null) throw new UpstreamError('http_4xx', `${AUTOPILOT_ENDPOINT}: no autopilot state`, 404);
  return parseBody(autopilotStateResponse, res.body, AUTOPILOT_ENDPOINT);
}
