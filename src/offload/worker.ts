import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { toUpstreamError } from '../upstream/errors.js';
import { ownedBuffers } from './transfer.js';
import { TASKS, type TaskName } from './tasks.js';

/** Entry of an offload worker thread: runs each task it is sent and answers with its result or error. */
const port = parentPort;
if (!port) throw new Error('offload worker started outside a worker thread');

const WORKER_NICE = 10;
yieldToMainThread();

port.on('message', (m: { id: number; name: TaskName; input: never }) => {
  try {
    const task = TASKS[m.name] as (input: unknown) => unknown;
    const ok = task(m.input);
    // The result's own buffers (a rendered group's bytes) are moved to the main thread, not copied.
    port.postMessage({ id: m.id, ok }, ownedBuffers(ok));
  } catch (e) {
    const err = toUpstreamError(e);
    // A bug in a task (not an upstream's fault) is `internal`, as on the main thread.
    const reason = err === e ? err.reason : 'internal';
    port.postMessage({ id: m.id, error: { reason, message: err.message, ...(err.status === undefined ? {} : { status: err.status }) } });
  }
});

/**
 * On a machine with fewer free cores than busy threads, the main thread (which answers scrapes)
 * must not wait for a core behind a worker's long task: the worker thread runs at a lower priority.
 * Linux only (a thread's own id, from /proc/thread-self, names just this thread); elsewhere, as is.
 */
function yieldToMainThread(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) setPriority(tid, WORKER_NICE);
  } catch {
    // not Linux, or not allowed: the thread keeps the process's priority
  }
}
