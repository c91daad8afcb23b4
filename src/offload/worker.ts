import { parentPort } from 'node:worker_threads';
import { toUpstreamError } from '../upstream/errors.js';
import { yieldToMainThread } from './start-thread.js';
import { ownedBuffers } from '../support/transfer.js';
import { TASKS, type TaskName } from './tasks.js';

/** Entry of an offload worker thread: runs each task it is sent and answers with its result or error. */
const port = parentPort;
if (!port) throw new Error('offload worker started outside a worker thread');

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
