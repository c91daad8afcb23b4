import { TASKS, type TaskInput, type TaskName, type TaskOutput } from '../offload/tasks.js';
import { transferable } from '../offload/transfer.js';
import type { BuildContext } from './context.js';

/**
 * Answers at least this large are decoded (and, for a gossip pool, rendered) on a worker thread.
 * Below it the main thread does it in one turn of a few milliseconds, cheaper than the hand-over
 * (~1,000 gossip members; a page of 100 teams is ~270 kB and goes to the worker).
 */
export const OFFLOAD_BYTES = 192 * 1024;

/**
 * Runs a task on an answer's body: moved to a worker thread when the body is large, on the main
 * thread in a turn of its own when it is small. Either way the result is the same pure function's.
 */
export async function decodeBody<N extends TaskName>(
  ctx: Pick<BuildContext, 'offload' | 'turns'>,
  name: N,
  body: Buffer,
  input: TaskInput<N>,
): Promise<TaskOutput<N>> {
  if (body.length >= OFFLOAD_BYTES) return ctx.offload.run(name, input, transferable(body));
  await ctx.turns.take();
  return (TASKS[name] as (i: TaskInput<N>) => TaskOutput<N>)(input);
}
