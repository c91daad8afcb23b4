import { family, single, upFamily, type Family } from '../../metrics/family.js';
import type { OperationTokenAttempt } from '../../upstream/secrets/operation-token-attempt.js';

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
