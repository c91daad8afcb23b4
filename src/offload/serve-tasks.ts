import { parentPort } from 'node:worker_threads';
import { toUpstreamError } from '../upstream/errors.js';
import { ownedBuffers } from '../support/transfer.js';
import type { TaskTable } from './pool.js';
import { yieldToMainThread } from '../support/threads.js';
import { idleCollector, idleSteps } from '../support/idle-collect.js';

/**
 * The body of an offload worker thread's entry module: runs each task of `tasks` it is sent and
 * answers with its result or error.
 */
export function serveTasks(tasks: TaskTable): void {
  const port = parentPort;
  if (!port) throw new Error('offload worker started outside a worker thread');

  yieldToMainThread();
  const answered = idleCollector(idleSteps('tasks'));

  port.on('message', (m: { id: number; name: string; input: never }) => {
    try {
      const task = tasks[m.name];
      if (!task) throw new Error(`no offload task ${m.name}`);
      const ok = task(m.input);
      // The result's own buffers (a rendered group's bytes) are moved to the other thread, not copied.
      port.postMessage({ id: m.id, ok }, ownedBuffers(ok));
    } catch (e) {
      const err = toUpstreamError(e);
      // A bug in a task (not an upstream's fault) is `internal`, as in the collection thread.
      const reason = err === e ? err.reason : 'internal';
      port.postMessage({ id: m.id, error: { reason, message: err.message, ...(err.status === undefined ? {} : { status: err.status }) } });
    }
    answered();
  });
}
