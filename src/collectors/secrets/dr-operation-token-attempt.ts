import { z } from 'zod';
import { family, single, upFamily, type Family } from '../../metrics/family.js';
import { boolish, lenient, numberish } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';

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

/**
 * A DR operation token generation attempt on a DR secondary, and since when vigil has seen it open.
 * The nonce and OTP are never exported: the view holds only counts, flags and a time.
 */
export interface AttemptView {
  /** Undefined when the answer did not say. */
  readonly started: boolean | undefined;
  readonly progress: number | undefined;
  readonly required: number | undefined;
  readonly pgp: boolean;
  /** When vigil first saw this attempt open (epoch seconds); undefined while none is open. */
  readonly firstSeen: number | undefined;
}

/**
 * Maps each poll of one target to its view, remembering when the open attempt was first seen. A new
 * nonce is a new attempt (cancelled and restarted between two polls), so its clock starts again.
 */
export function attemptClock(now: () => number = Date.now): (a: OperationTokenAttempt) => AttemptView {
  let open: { nonce: string | undefined; since: number } | undefined;
  return (a) => {
    const isOpen = a.started === undefined ? undefined : a.started && !a.complete;
    if (!isOpen) open = undefined;
    else if (!open || open.nonce !== a.nonce) open = { nonce: a.nonce, since: now() / 1000 };
    return { started: isOpen, progress: a.progress, required: a.required, pgp: a.pgp_fingerprint !== undefined, firstSeen: open?.since };
  };
}

const FROM_POLL = 'from a scheduled poll of sys/replication/dr/secondary/generate-operation-token/attempt (DR secondaries only)';

export const attemptUp = upFamily({
  name: 'secrets_dr_operation_token_attempt_up',
  help: `1 when the last scheduled poll of the DR operation token generation attempt succeeded and parsed, else 0; absent on clusters that are not DR secondaries.`,
  section: 'secrets',
  labels: ['target'],
});

const gauge = (name: string, help: string, value: (v: AttemptView) => number | boolean | undefined): Family<AttemptView> =>
  family<AttemptView>({ name, help: `${help}; ${FROM_POLL}.`, type: 'gauge', section: 'secrets', labels: ['target'], samples: single(value) });

export const attemptFamilies: readonly Family<AttemptView>[] = [
  gauge(
    'secrets_dr_operation_token_attempt_started',
    '1 while a DR operation token generation attempt is open (started and not complete), else 0',
    (v) => v.started,
  ),
  gauge('secrets_dr_operation_token_attempt_progress', 'Key shares supplied to the open attempt (0 when none is open)', (v) =>
    v.started === undefined ? undefined : v.started ? v.progress : 0,
  ),
  gauge('secrets_dr_operation_token_attempt_required', 'Key shares needed to complete an attempt', (v) => v.required),
  gauge('secrets_dr_operation_token_attempt_pgp', '1 when the open attempt encrypts the final token with a PGP key, else 0', (v) =>
    v.started === undefined ? undefined : v.started && v.pgp,
  ),
  gauge(
    'secrets_dr_operation_token_attempt_first_seen_timestamp_seconds',
    'When vigil first saw the open attempt, as Unix time (a new nonce restarts it; a vigil restart too); absent while none is open',
    (v) => v.firstSeen,
  ),
];

/**
 * Whether someone is assembling key shares for a DR operation token; only a DR secondary has the
 * endpoint. The target's clock lives as long as its job, so a failed poll does not restart an attempt's age.
 */
export const drOperationTokenAttemptEndpoint = endpoint({
  id: 'secrets/dr-operation-token-attempt',
  method: 'GET',
  path: '/v1/sys/replication/dr/secondary/generate-operation-token/attempt',
  schema: operationTokenAttemptResponse,
  read: async (get, c: { attemptClock: (a: OperationTokenAttempt) => AttemptView }) => c.attemptClock((await get()).value),
  needs: 'none: unauthenticated (the key shares are the proof), root namespace only',
  up: attemptUp,
  families: attemptFamilies,
});
