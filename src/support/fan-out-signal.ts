import { EventEmitter, setMaxListeners } from 'node:events';

/**
 * A signal for `calls` requests made at once under `parent`: it follows the parent with a single
 * listener, and takes one from each call's attempt (and from the calls nested in it) without Node's
 * warning past 10 listeners, which is meant to catch a leak, not a fan-out an answer sizes (a
 * cluster's nodes, up to the nodes polled). `done` takes its listener off the parent once the calls
 * are over, so a long-lived parent holds one listener per fan-out in flight, not one per request.
 */
export function fanOutSignal(parent: AbortSignal, calls: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  // Headroom above the calls for the requests nested in them, as any signal has by default.
  setMaxListeners(calls + EventEmitter.defaultMaxListeners, controller.signal);
  const follow = () => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, done: () => parent.removeEventListener('abort', follow) };
}
