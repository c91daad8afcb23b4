import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { timerMs } from '../config-fields/units.js';
import { UpstreamError } from './errors.js';
import { Received } from './received.js';

/**
 * One attempt's signal: aborted by the caller's signal, or when the attempt's time is up. It is
 * disposed when the attempt ends, so the caller's long-lived signal does not collect a reference per
 * request (AbortSignal.any keeps one in Node 20: a leak of every request ever sent).
 */
export function attemptSignal(parent: AbortSignal | undefined, ms: number): { signal: AbortSignal; timedOut: () => boolean; dispose: () => void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no complete answer within ${ms} ms`));
  }, timerMs(ms));
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', follow);
    },
  };
}

/**
 * The body as it arrives (see `Received`), its size bounded by `max` and by its declared length;
 * with `digest`, its SHA-256 taken chunk by chunk, so that knowing it again needs no copy of it.
 */
export async function readBody(res: Dispatcher.ResponseData, max: number, endpoint: string, digest = false): Promise<Received> {
  const declared = Number(res.headers['content-length']);
  const tooLarge = () => new UpstreamError('too_large', `${endpoint}: response larger than ${max} bytes`);
  if (Number.isFinite(declared) && declared > max) {
    res.body.destroy();
    throw tooLarge();
  }
  const bound = Number.isFinite(declared) && declared > 0 ? declared : Infinity;
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
