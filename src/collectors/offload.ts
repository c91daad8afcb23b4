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
 * A page of teams is decoded on a worker thread from this size: every page of the service's size
 * (100 teams are ~270 kB), and only a small organization's last page (a few teams) in the collection
 * thread. A page's text is one string too large for V8's young generation, so it is allocated where
 * only a full collection frees it: a thousand pages a collection at a million series made the
 * collection thread mark its whole heap every few megabytes. The worker thread's heap holds little
 * between tasks, so marking it costs little; what crosses back is a page's teams, about 10 kB. Measured
 * turn about at a million series (`bench/collect-ab.ts`): 17 % less CPU a collection than decoding
 * each page in the collection thread (docs/performance.md).
 */
export const TEAMS_PAGE_OFFLOAD_BYTES = 64 * 1024;

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

/**
 * The young generation of the decoding threads, in MiB (vigil's other threads have 8). `JSON.parse`
 * builds a whole answer's objects at once, all alive until the answer is mapped: with 8 MiB, each
 * scavenge during a gossip pool's parse (a pool of 20,000 members is ~30 MB of objects) copied
 * everything built so far, and promoted it, and the thread spent a third of its time collecting.
 * With 64 MiB a page of teams is parsed, mapped and dropped between two scavenges. Measured turn
 * about at a million series (`bench/collect-ab.ts`): 23 % less CPU a collection. It costs RSS at every
 * size, about 86 MiB at 1x where it saves no CPU (docs/performance.md, "Under 8 CPU seconds with
 * every answer changed").
 */
export const DECODING_YOUNG_GENERATION_MB = 64;

/** The worker threads that run the collectors' tasks (`offload-worker.ts`); started on first use. */
export const collectionOffloadPool = (size?: number) =>
  new OffloadPool<typeof TASKS>(
    { base: import.meta.url, name: 'offload-worker', resourceLimits: { maxYoungGenerationSizeMb: DECODING_YOUNG_GENERATION_MB } },
    size,
  );
