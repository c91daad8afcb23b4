import { HOLDINGS, TASKS, type TaskInput, type TaskName, type TaskOutput } from './offload-tasks.js';
import { transferable } from '../support/transfer.js';
import type { AnswerMemo, Holding } from '../upstream/answer-memo.js';
import type { BuildContext } from '../jobs/context.js';
import { OffloadPool } from '../offload/pool.js';

/**
 * A gossip pool answer at least this large (~1,000 members) is decoded and rendered on a worker
 * thread. Below it the collection thread does it in one turn of a few milliseconds, cheaper than the
 * hand-over.
 */
export const OFFLOAD_BYTES = 192 * 1024;

/**
 * A page of teams is decoded on a worker thread from this size. A page of 100 teams is ~270 kB,
 * decoded in the collection thread in a turn of its own in a few milliseconds: measured at 3x (300 pages
 * per collection), handing each page to the worker and its teams back cost more CPU and no shorter
 * stall. Only pages far larger than the service's (huge attributes) go to the worker.
 */
export const TEAMS_PAGE_OFFLOAD_BYTES = 1024 * 1024;

/** Where an answer's last decoding is kept (its target's memo), and under what: its endpoint, and the page for a paged listing. */
export interface Remembered {
  memo: AnswerMemo;
  endpoint: string;
  key?: string;
}

/**
 * Runs a task on an answer's body: moved to a worker thread when the body is large, in the
 * collection thread in a turn of its own when it is small. Either way the result is the same pure
 * function's. With `remembered`, a body byte-identical to the last one under the same endpoint and
 * key is not decoded again: the task's last result is reused (see `AnswerMemo`).
 */
export async function decodeBody<N extends TaskName>(
  ctx: Pick<BuildContext, 'offload' | 'turns'>,
  name: N,
  body: Buffer,
  input: TaskInput<N>,
  threshold = OFFLOAD_BYTES,
  remembered?: Remembered,
): Promise<TaskOutput<N>> {
  const run = async (): Promise<TaskOutput<N>> => {
    if (body.length >= threshold) return ctx.offload.run(name, input, transferable(body)) as Promise<TaskOutput<N>>;
    await ctx.turns.take();
    return (TASKS[name] as (i: TaskInput<N>) => TaskOutput<N>)(input);
  };
  if (!remembered) return run();
  const holding = HOLDINGS[name] as Holding<TaskOutput<N>> | undefined;
  return remembered.memo.decode(remembered.endpoint, remembered.key ?? '', body, run, holding);
}

/** The worker threads that run the collectors' tasks (`offload-worker.ts`); started on first use. */
export const collectionOffloadPool = (size?: number) => new OffloadPool<typeof TASKS>({ base: import.meta.url, name: 'offload-worker' }, size);
