import { ApiError, badRequest, notFound, ok, type Reply } from './api-error.js';
import { optionalBool, optionalString, type Body } from './request-body.js';

/**
 * Automated raft snapshots of one cluster (Enterprise, integrated storage): each configuration takes
 * a snapshot every interval; a fault makes its attempts fail (with an error text as an S3 upload
 * failure reads) or stalls it (no attempt any more: the next start stays in the past, as a stuck
 * scheduler leaves it). Attempts are played out lazily, when a status is read or a fault changes.
 */
export interface SimSnapshot {
  readonly name: string;
  readonly intervalMs: number;
  lastStart?: Date;
  lastEnd?: Date;
  lastError: string;
  lastUrl: string;
  consecutiveErrors: number;
  /** Failed saves since the cluster started, never reset (`vault.autosnapshots.save.errors`). */
  saveErrors: number;
  nextStart: Date;
  failing?: string;
  stalled: boolean;
}

/** `enterprise` serves the paths; `community` answers 404 "enterprise-only feature"; `no-raft` 400 "raft storage is not in use". */
export type SnapshotSupport = 'enterprise' | 'community' | 'no-raft';

export interface SnapshotSet {
  support: SnapshotSupport;
  readonly configs: Map<string, SimSnapshot>;
}

/** An S3 destination refusing the upload, in the AWS SDK's words. */
export const SNAPSHOT_ERROR =
  'error writing snapshot to storage: operation error S3: PutObject, https response error StatusCode: 403, RequestID: 7Q4B2DXH9E1M, api error AccessDenied: Access Denied';

const ATTEMPT_MS = 1200;

/** The configurations of a scenario, each with one successful snapshot taken a minute before the cluster started. */
export function createSnapshots(
  configs: ReadonlyArray<{ name: string; intervalSeconds?: number }> = [],
  support: SnapshotSupport = 'enterprise',
  now = new Date(),
): SnapshotSet {
  const set: SnapshotSet = { support, configs: new Map() };
  for (const c of configs) {
    const intervalMs = (c.intervalSeconds ?? 3600) * 1000;
    const s: SimSnapshot = {
      name: c.name,
      intervalMs,
      lastError: '',
      lastUrl: '',
      consecutiveErrors: 0,
      saveErrors: 0,
      nextStart: new Date(now.getTime() - 60_000),
      stalled: false,
    };
    attempt(s, s.nextStart);
    set.configs.set(c.name, s);
  }
  return set;
}

function attempt(s: SimSnapshot, at: Date, count = 1): void {
  s.lastStart = at;
  s.lastEnd = new Date(at.getTime() + ATTEMPT_MS);
  if (s.failing) {
    s.consecutiveErrors += count;
    s.saveErrors += count;
    s.lastError = s.failing;
  } else {
    s.consecutiveErrors = 0;
    s.lastError = '';
    s.lastUrl = `s3://vault-snapshots/${s.name}/vault-snapshot-${at.getTime()}000000.snap`;
  }
  s.nextStart = new Date(at.getTime() + s.intervalMs);
}

/** Every attempt due by `now`, in one step however many intervals passed. */
export function playOut(s: SimSnapshot, now: Date): void {
  if (s.stalled || s.nextStart > now) return;
  const due = Math.floor((now.getTime() - s.nextStart.getTime()) / s.intervalMs) + 1;
  attempt(s, new Date(s.nextStart.getTime() + (due - 1) * s.intervalMs), due);
}

const iso = (d: Date | undefined): string => (d ? d.toISOString() : '');

/** `sys/storage/raft/snapshot-auto/status/:name`, in the `data` envelope, as the API documents it (with the fields newer servers add). */
export function snapshotStatus(set: SnapshotSet, name: string, now: Date): Reply {
  supported(set);
  const s = set.configs.get(name);
  if (!s) throw new ApiError(404, []);
  playOut(s, now);
  return ok({
    data: {
      consecutive_errors: s.consecutiveErrors,
      last_snapshot_end: iso(s.lastEnd),
      last_snapshot_error: s.lastError,
      last_snapshot_start: iso(s.lastStart),
      last_snapshot_url: s.lastUrl,
      next_snapshot_start: iso(s.nextStart),
      snapshot_start: iso(s.lastStart),
      snapshot_url: s.lastUrl,
    },
  });
}

/** `LIST sys/storage/raft/snapshot-auto/config`: a list answer, or 404 with no keys, as the service's lists answer. */
export function snapshotConfigs(set: SnapshotSet): Reply {
  supported(set);
  if (!set.configs.size) throw new ApiError(404, []);
  return ok({ data: { keys: [...set.configs.keys()].sort() } });
}

function supported(set: SnapshotSet): void {
  if (set.support === 'community') throw notFound('enterprise-only feature');
  if (set.support === 'no-raft') throw badRequest('raft storage is not in use');
}

/**
 * `POST /_sim/snapshots/<name>`: `failing` (true: the attempts fail with `error`, or the S3 refusal;
 * false: they succeed again), `attempts` (take that many now, a second apart: an operator's retries),
 * `stalled` (true: no attempt any more, the last one `stalled_for_seconds` ago). `POST
 * /_sim/snapshots` with `support`: enterprise, community or no-raft.
 */
export function setSnapshot(set: SnapshotSet, name: string, body: Body, now = new Date()): Reply {
  const s = set.configs.get(name);
  if (!s) throw notFound(`no snapshot configuration "${name}" (have: ${[...set.configs.keys()].join(', ')})`);
  playOut(s, now);
  const failing = optionalBool(body, 'failing');
  if (failing !== undefined) s.failing = failing ? (optionalString(body, 'error') ?? SNAPSHOT_ERROR) : undefined;
  const attempts = body.attempts ?? (failing === undefined ? 0 : 1);
  if (typeof attempts !== 'number' || !Number.isInteger(attempts) || attempts < 0 || attempts > 100)
    throw badRequest('"attempts" must be an integer from 0 to 100');
  for (let i = attempts - 1; i >= 0; i--) attempt(s, new Date(now.getTime() - i * 1000 - ATTEMPT_MS));
  const stalled = optionalBool(body, 'stalled');
  if (stalled !== undefined) s.stalled = stalled;
  const ago = body.stalled_for_seconds;
  if (ago !== undefined) {
    if (typeof ago !== 'number' || ago < 0) throw badRequest('"stalled_for_seconds" must be a number of seconds, not negative');
    s.lastStart = new Date(now.getTime() - ago * 1000);
    s.lastEnd = new Date(s.lastStart.getTime() + ATTEMPT_MS);
    s.nextStart = new Date(s.lastStart.getTime() + s.intervalMs);
  }
  if (!s.stalled) playOut(s, now);
  return ok(snapshotsView(set));
}

export function setSupport(set: SnapshotSet, body: Body): Reply {
  const support = optionalString(body, 'support');
  if (support !== 'enterprise' && support !== 'community' && support !== 'no-raft') throw badRequest('"support" must be enterprise, community or no-raft');
  set.support = support;
  return ok(snapshotsView(set));
}

export function snapshotsView(set: SnapshotSet): Record<string, unknown> {
  return {
    support: set.support,
    configs: [...set.configs.values()].map((s) => ({
      name: s.name,
      interval_seconds: s.intervalMs / 1000,
      failing: s.failing !== undefined,
      stalled: s.stalled,
      consecutive_errors: s.consecutiveErrors,
      last_snapshot_end: iso(s.lastEnd),
      next_snapshot_start: iso(s.nextStart),
    })),
  };
}

const STATUS = /^\/v1\/sys\/storage\/raft\/snapshot-auto\/status\/([^/]+)$/;
const CONFIGS = '/v1/sys/storage/raft/snapshot-auto/config';

/**
 * The snapshot path a request asks for, with the access it takes (the status: any token that may
 * read it; the list: sudo); undefined for others. The listing is the `GET ?list=true` form: Node's
 * HTTP parser refuses a LIST request line before any handler sees it.
 */
export function snapshotRoute(
  method: string,
  path: string,
  query: URLSearchParams,
): { access: 'client' | 'sudo'; reply: (set: SnapshotSet, now: Date) => Reply } | undefined {
  const status = STATUS.exec(path);
  if (status && method === 'GET') return { access: 'client', reply: (set, now) => snapshotStatus(set, decodeURIComponent(status[1] ?? ''), now) };
  if (path === CONFIGS && method === 'GET' && query.get('list') === 'true') return { access: 'sudo', reply: (set) => snapshotConfigs(set) };
  return undefined;
}
