import type { Dispatcher } from 'undici';
import { timerMs } from '../config-fields/units.js';
import { UpstreamError } from './errors.js';

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
 * The body in one buffer. With a declared length it is read straight into a buffer of that size,
 * so the chunks are released as they arrive instead of being held until one copy of them all is made.
 */
export async function readCapped(res: Dispatcher.ResponseData, max: number, endpoint: string): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  const tooLarge = () => new UpstreamError('too_large', `${endpoint}: response larger than ${max} bytes`);
  if (Number.isFinite(declared) && declared > max) {
    res.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  const into = Number.isFinite(declared) && declared > 0 ? Buffer.allocUnsafeSlow(declared) : undefined;
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (size + chunk.length > max || (into && size + chunk.length > into.length)) {
      res.body.destroy();
      throw size + chunk.length > max ? tooLarge() : new UpstreamError('decode', `${endpoint}: body longer than its content-length`);
    }
    if (into) chunk.copy(into, size);
    else chunks.push(chunk);
    size += chunk.length;
  }
  if (into) return size === into.length ? into : into.subarray(0, size);
  return Buffer.concat(chunks, size);
}
