import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { timerMs } from '../config-fields/units.js';
import { UpstreamError } from './errors.js';
import { Received } from './received.js';
import type { Permit } from '../support/byte-budget.js';

/** One attempt's signal, and its timer's controls. */
export interface AttemptBound {
  readonly signal: AbortSignal;
  timedOut(): boolean;
  /**
   * Runs `wait` with the attempt's time stopped: a wait of vigil's own (its turn to read an answer)
   * is no slowness of the upstream's. The signal still follows the caller's.
   */
  paused<T>(wait: () => Promise<T>): Promise<T>;
  /** Milliseconds spent in `paused`. */
  readonly pausedMs: number;
  dispose(): void;
}

/**
 * One attempt's signal: aborted by the caller's signal, or when the attempt's time is up. It is
 * disposed when the attempt ends, so the caller's long-lived signal does not collect a reference per
 * request (AbortSignal.any keeps one in Node 20: a leak of every request ever sent).
 */
export function attemptSignal(parent: AbortSignal | undefined, ms: number): AttemptBound {
  const controller = new AbortController();
  let timedOut = false;
  let left = ms;
  let since = performance.now();
  let pausedMs = 0;
  let disposed = false;
  const expire = () => {
    timedOut = true;
    controller.abort(new Error(`no complete answer within ${ms} ms`));
  };
  let timer: NodeJS.Timeout | undefined = setTimeout(expire, timerMs(left));
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    get pausedMs() {
      return pausedMs;
    },
    paused: async (wait) => {
      if (timer === undefined) return wait();
      clearTimeout(timer);
      const from = performance.now();
      left -= from - since;
      try {
        return await wait();
      } finally {
        since = performance.now();
        pausedMs += since - from;
        timer = disposed || controller.signal.aborted ? undefined : setTimeout(expire, timerMs(Math.max(0, left)));
      }
    },
    dispose: () => {
      disposed = true;
      clearTimeout(timer);
      timer = undefined;
      parent?.removeEventListener('abort', follow);
    },
  };
}

/**
 * The body as it arrives (see `Received`), its size bounded by `max` and by its declared length;
 * with `digest`, its SHA-256 taken chunk by chunk, so that knowing it again needs no copy of it.
 * With `permit`, the body holds it (resized to the bytes read) until released; a failed read
 * releases it at once.
 */
export async function readBody(res: Dispatcher.ResponseData, max: number, endpoint: string, digest = false, permit?: Permit): Promise<Received> {
  try {
    const received = await readChunks(res, max, endpoint, digest);
    permit?.resize(received.length);
    return received.holding(permit);
  } catch (e) {
    permit?.release();
    throw e;
  }
}

/**
 * The answer's turn to be read, asked of `admit` with the length its headers declare: waited for
 * (when it is a promise) with the attempt's time stopped; if the wait fails, the body is dropped
 * unread.
 */
export async function turnToRead(
  admit: ((declared: number | undefined, signal: AbortSignal) => Permit | Promise<Permit>) | undefined,
  res: Dispatcher.ResponseData,
  bound: AttemptBound,
): Promise<Permit | undefined> {
  const asked = admit?.(declaredLength(res), bound.signal);
  if (!(asked instanceof Promise)) return asked;
  try {
    return await bound.paused(() => asked);
  } catch (e) {
    res.body.destroy();
    throw e;
  }
}

/** The length the answer's headers declare, when they do. */
export function declaredLength(res: Pick<Dispatcher.ResponseData, 'headers'>): number | undefined {
  const declared = Number(res.headers['content-length']);
  return Number.isFinite(declared) && declared >= 0 ? declared : undefined;
}

async function readChunks(res: Dispatcher.ResponseData, max: number, endpoint: string, digest: boolean): Promise<Received> {
  const declared = declaredLength(res);
  const tooLarge = () => new UpstreamError('too_large', `${endpoint}: response larger than ${max} bytes`);
  if (declared !== undefined && declared > max) {
    res.body.destroy();
    throw tooLarge();
  }
  const bound = declared ? declared : Infinity;
  const hash = digest ? createHash('sha256') : undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (size + chunk.length > max || size + chunk.length > bound) {
      res.body.destroy();
      throw size + chunk.length > max ? tooLarge() : new UpstreamError('decode', `${endpoint}: body longer than its content-length`);
    }
    hash?.update(chunk);
    chunks.push(chunk);
    size += chunk.length;
  }
  return new Received(chunks, size, hash?.digest(), true);
}
