import { transferable } from '../support/transfer.js';
import type { Turns } from '../support/turns.js';
import type { AnswerMemo } from '../upstream/answer-memo.js';
import type { Received } from '../upstream/received.js';
import type { Offload, TaskTable } from './pool.js';

/** Where an answer's last decoding is kept (its target's memo), and under what: its endpoint, and its query (a listing's page). */
export interface Remembered {
  memo: AnswerMemo;
  endpoint: string;
  key?: string;
}

/**
 * Runs a task on an answer's body (its input made from the body's bytes by `input`): moved to a
 * worker thread when the body is at least `threshold` bytes, in the calling thread in a turn of its
 * own when smaller. Either way the result is the same pure function's. With `remembered`, a body
 * byte-identical to the last one under the same endpoint and key is not decoded again, nor joined
 * into one buffer: the task's last result is reused (see `AnswerMemo`). Either way the body is
 * released once done with (`Received.release`).
 */
export async function decodeBody<T extends TaskTable, N extends keyof T & string>(
  ctx: { offload: Offload; turns: Turns },
  tasks: T,
  name: N,
  body: Received,
  input: (bytes: Buffer) => Parameters<T[N]>[0],
  threshold: number,
  remembered?: Remembered,
): Promise<ReturnType<T[N]>> {
  type Out = ReturnType<T[N]>;
  type In = Parameters<T[N]>[0];
  const run = async (): Promise<Out> => {
    const bytes = body.bytes();
    if (bytes.length >= threshold) return ctx.offload.run(name, input(bytes), transferable(bytes), bytes.length) as Promise<Out>;
    await ctx.turns.take();
    return (tasks[name] as (i: In) => Out)(input(bytes));
  };
  try {
    if (!remembered) return await run();
    return await remembered.memo.decode(remembered.endpoint, remembered.key ?? '', body.digest(), run, body.cleanOf, body.length);
  } finally {
    // read (joined and handed to the task) or known again: its chunks are not needed any more
    body.release();
  }
}
