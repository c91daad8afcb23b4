import { z } from 'zod';
import type { UpstreamClient } from '../client.js';
import { parseBody } from '../parse.js';
import { boolish, lenient, numberish } from '../schema-helpers.js';

/**
 * `GET /v1/sys/replication/dr/secondary/generate-operation-token/attempt` on a DR secondary:
 * whether someone is assembling key shares for a DR operation token. Unauthenticated (the key
 * shares are the proof), restricted to the root namespace, so no token or namespace header is sent.
 *
 * Only what vigil exports is kept, each field costing only its own series when it is missing, null
 * or of another type. `nonce` identifies the attempt so vigil can tell a new attempt
 * from the same one; it stays in memory and never reaches a metric or a log. `otp` and
 * `encoded_token` are not even read: a value that is not parsed cannot leak.
 */
const attempt = z.object({
  /** Absent only on an answer vigil does not know: then whether an attempt is open is unknown. */
  started: lenient(boolish),
  nonce: lenient(z.string()).transform((v) => v || undefined),
  progress: lenient(numberish),
  required: lenient(numberish),
  complete: lenient(boolish).transform((v) => v ?? false),
  pgp_fingerprint: lenient(z.string()).transform((v) => v || undefined),
});

/** The spec shows the attempt at the top level (as the root-token attempt is); a `data` envelope is accepted too. */
export const operationTokenAttemptResponse = z.preprocess(
  (body) =>
    body && typeof body === 'object' && 'data' in body && (body as { data: unknown }).data && !('started' in body) ? (body as { data: unknown }).data : body,
  attempt,
);

export type OperationTokenAttempt = z.output<typeof attempt>;

export const ATTEMPT_ENDPOINT = 'dr/secondary/generate-operation-token/attempt';

export async function fetchOperationTokenAttempt(client: UpstreamClient, signal: AbortSignal): Promise<OperationTokenAttempt> {
  const res = await client.json({ endpoint: ATTEMPT_ENDPOINT, path: `/v1/sys/replication/${ATTEMPT_ENDPOINT}`, signal });
  return parseBody(operationTokenAttemptResponse, res.body, ATTEMPT_ENDPOINT);
}
