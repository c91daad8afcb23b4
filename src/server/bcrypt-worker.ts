import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import { yieldToMainThread } from '../support/threads.js';
import type { BcryptReply, BcryptRequest } from './bcrypt-thread.js';

/** Entry of the bcrypt thread: one comparison at a time, each answered true or false. */
const port = parentPort;
if (!port) throw new Error('bcrypt worker started outside a worker thread');

// A round is ~80 ms of CPU: on a busy machine the main thread, which answers scrapes, goes first.
yieldToMainThread();

port.on('message', (m: BcryptRequest) => {
  let ok = false;
  try {
    ok = bcrypt.compareSync(m.password, m.hash);
  } catch {
    // A hash bcryptjs cannot read verifies nothing.
  }
  port.postMessage({ id: m.id, ok } satisfies BcryptReply);
});
