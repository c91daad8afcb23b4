import { transferable } from '../support/transfer.js';
import type { Turns } from '../support/turns.js';
import type { AnswerMemo } from '../upstream/answer-memo.js';
import type { Offload, TaskTable } from './pool.js';

/** Where an answer's last decoding is kept (its target's memo), and under what: its endpoint, and its query (a listing's page). */
export interface Remembered {
  memo: AnswerMemo;
  endpoint: string;
  key?: string;
}

/**
 * Runs a task on an answer's body: moved to a worker thread when the body is at least `threshold`
 * bytes, in the calling thread in a turn of its own when smaller. Either way the result is the same
 * pure function's. With `remembered`, a body byte-identical to the last one under the same endpoint
 * and key is not decoded again: the task's last result is reused (see `AnswerMemo`).
 */
export async function decodeBody<T extends TaskTable, N extends keyof T & string>(
  ctx: { offload: Offload; turns: Turns },
  tasks: T,
  name: N,
  body: Buffer,
  input: Parameters<T[N]>[0],
  threshold: number,
  remembered?: Remembered,
): Promise<ReturnType<T[N]>> {
  type Out = ReturnType<T[N]>;
  const run = async (): Promise<Out> => {
    if (body.length >= threshold) return ctx.offload.run(name, input, transferable(body), body.length) as Promise<Out>;
    await ctx.turns.take();
    return (tasks[name] as (i: typeof input) => Out)(input);
  };
  if (!remembered) return run();
  return remembered.memo.decode(remembered.endpoint, remembered.key ?? '', body, run);
}
