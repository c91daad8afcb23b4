import { z } from 'zod';
import { family, single, upFamily, type Family } from '../../metrics/family.js';
import type { UpstreamError } from '../../upstream/errors.js';
import { instant, lenient, lenientString, numberish } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';
import type { SecretsAuth } from './auth.js';

/**
 * `GET /v1/sys/storage/raft/snapshot-auto/status/:name` (Enterprise, integrated storage; no sudo,
 * unlike the config paths): the last attempt of one automated snapshot configuration. The answer
 * describes the last attempt only: `last_snapshot_end` is when it ended and `last_snapshot_error`
 * why it failed ("" when it did not); `consecutive_errors` (newer servers) counts the failures since
 * the last success. Older servers send neither `consecutive_errors` nor `next_snapshot_start`: those
 * series are then absent, and nothing else is.
 */
const status = z.object({
  consecutive_errors: lenient(numberish),
  last_snapshot_start: lenient(instant),
  last_snapshot_end: lenient(instant),
  last_snapshot_error: lenientString,
  next_snapshot_start: lenient(instant),
});

export const snapshotStatusResponse = z.object({ data: status });
type Status = z.output<typeof status>;

/** What the last error keeps of the server's text: a label value of bounded size. */
export const SNAPSHOT_ERROR_CHARS = 128;

/**
 * A destination's URL in an error may carry credentials: a user and password before its host, a
 * signature or token in its query (a pre-signed or SAS URL). Both are dropped before the text is kept.
 */
const withoutUrlSecrets = (text: string): string =>
  text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1').replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#]*)[?#][^\s"'<>]*/gi, '$1?…');

/** The text as one line of at most SNAPSHOT_ERROR_CHARS characters (code points: no half of a pair), without a URL's credentials; the renderer escapes it. */
export const cappedError = (text: string): string => {
  // Cut first: the patterns then run over a few kilobytes, however long the answer's text.
  const line = withoutUrlSecrets(text.slice(0, 4096)).replace(/\s+/g, ' ').trim();
  const chars = Array.from(line);
  return chars.length <= SNAPSHOT_ERROR_CHARS ? line : `${chars.slice(0, SNAPSHOT_ERROR_CHARS - 1).join('')}…`;
};

/** One snapshot configuration's status as its families map it. */
export interface SnapshotView {
  readonly consecutiveErrors?: number;
  /** When the last attempt that succeeded ended: this answer's, or the one remembered from an earlier answer. */
  readonly lastSuccess?: number;
  readonly nextStart?: number;
  /** The last attempt's error, capped; only while the attempts fail. */
  readonly error?: string;
}

/**
 * The last success, derived with care: the answer's last attempt is a success when it says no error
 * and counts none since (`consecutive_errors` 0 or absent); its end is then the last success, and is
 * remembered. While the attempts fail, the answer no longer says when the last success was: the one
 * remembered (by this vigil, for this target and name) stands; a vigil that started during the
 * failures has none, and exports none (the failing rule pages on the errors instead, never a guess).
 */
export function snapshotView(s: Status, remembered: Map<string, number>, name: string): SnapshotView {
  const failed = (s.last_snapshot_error ?? '') !== '' || (s.consecutive_errors ?? 0) > 0;
  if (!failed && s.last_snapshot_end !== undefined) remembered.set(name, s.last_snapshot_end);
  const errors = s.consecutive_errors ?? (s.last_snapshot_error ? 1 : undefined);
  return {
    consecutiveErrors: s.consecutive_errors,
    lastSuccess: remembered.get(name),
    nextStart: s.next_snapshot_start,
    error: errors && s.last_snapshot_error ? cappedError(s.last_snapshot_error) : undefined,
  };
}

const LABELS = ['target', 'name'] as const;
const FROM = 'from sys/storage/raft/snapshot-auto/status/<name> as the cluster address answers it';

export const snapshotUp = upFamily({
  name: 'secrets_raft_snapshot_up',
  help: `1 when the last poll of this automated snapshot configuration's status succeeded and parsed, else 0; absent where automated snapshots do not apply (no integrated storage, not Enterprise, a DR secondary); ${FROM}.`,
  section: 'secrets',
  labels: [...LABELS],
});

const gauge = (name: string, help: string, value: (v: SnapshotView) => number | undefined): Family<SnapshotView> =>
  family<SnapshotView>({ name, help: `${help}; ${FROM}.`, type: 'gauge', section: 'secrets', labels: [...LABELS], samples: single(value) });

export const snapshotFamilies: readonly Family<SnapshotView>[] = [
  gauge(
    'secrets_raft_snapshot_last_success_timestamp_seconds',
    "When the configuration's last successful snapshot ended (last_snapshot_end of an attempt without error); while attempts fail, the last one this vigil saw succeed, absent if it saw none",
    (v) => v.lastSuccess,
  ),
  gauge(
    'secrets_raft_snapshot_consecutive_errors',
    'Snapshot attempts of the configuration that failed in a row since its last success (consecutive_errors); absent on servers that do not send it',
    (v) => v.consecutiveErrors,
  ),
  gauge('secrets_raft_snapshot_next_start_timestamp_seconds', 'When the configuration takes its next snapshot (next_snapshot_start)', (v) => v.nextStart),
  family<SnapshotView>({
    name: 'secrets_raft_snapshot_last_error_info',
    help: `1 while the configuration's attempts fail, with the last error's text (last_snapshot_error, one line of at most ${SNAPSHOT_ERROR_CHARS} characters) as the error label; absent while they succeed; ${FROM}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...LABELS, 'error'],
    samples: (v) => (v.error === undefined ? [] : [{ labels: { error: v.error }, value: 1 }]),
  }),
];

/** Automated snapshots do not apply: no integrated storage (400 "raft storage is not in use"), not Enterprise (404, 405), a DR secondary (400 "path disabled"). */
export const snapshotsNotApplicable = (err: UpstreamError): boolean =>
  err.status === 404 || err.status === 405 || (err.status === 400 && /raft storage is not in use|path disabled|integrated storage/i.test(err.message));

/** What a target's snapshot calls keep across runs: the last success seen per name, and the names last listed. */
export interface SnapshotMemory {
  readonly successes: Map<string, number>;
  listed: readonly string[];
}

/** What the status call reads of its target's state. */
interface SnapshotCall extends SecretsAuth {
  readonly snapshots: SnapshotMemory;
}

/** One automated snapshot configuration: when it last succeeded, how many attempts failed since, when it runs next. */
export const raftSnapshotStatusEndpoint = endpoint({
  id: 'secrets/raft-snapshot-status',
  method: 'GET',
  path: '/v1/sys/storage/raft/snapshot-auto/status/{name}',
  schema: snapshotStatusResponse,
  send: async (c: SnapshotCall, name: string) => ({ ...(await c.rooted()), params: { name } }),
  read: async (get, c, name) => snapshotView((await get()).value.data, c.snapshots.successes, name),
  needs: 'read on sys/storage/raft/snapshot-auto/status/<name> (root namespace; no sudo)',
  up: snapshotUp,
  families: snapshotFamilies,
  notApplicable: {
    test: snapshotsNotApplicable,
    means:
      'no automated snapshots here: no integrated storage (400 "raft storage is not in use"), not Enterprise (404, 405), or a DR secondary (400 "path disabled")',
  },
});
