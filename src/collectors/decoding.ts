import { decodeBody, type Remembered } from '../offload/decode-body.js';
import { OffloadPool, type SizedLimits } from '../offload/pool.js';
import { powerOfTwoStep } from '../support/power-of-two.js';
import type { BuildContext } from '../jobs/context.js';
import type { Received } from '../upstream/received.js';
import { membersPoll } from './agent/members.js';
import { decodeDeploymentsPage } from './agent/deployments-page.js';
import { decodeEvaluationsPage } from './agent/evaluations.js';
import { decodeJobsPage } from './agent/jobs-page.js';
import { decodeNodesPage } from './agent/nodes.js';
import { decodeAutopilotState } from './secrets/raft-autopilot-answer.js';
import { decodeTeamsPage } from './teams/list.js';
import { decodeAnswer } from './decode-answer.js';

/**
 * The collectors' decoding tasks: pure functions from a structured-cloneable input (an answer's
 * bytes and what reading them needs) to a structured-cloneable output. A worker thread runs them
 * for a large answer, the collection thread for a small one. An endpoint names its task in its
 * declaration (`offload`); every task it names must be here, which `defineCollector` checks.
 */
export const TASKS = {
  'agent-members': membersPoll,
  'agent-nodes-page': decodeNodesPage,
  'agent-jobs-page': decodeJobsPage,
  'agent-evaluations-page': decodeEvaluationsPage,
  'agent-deployments-page': decodeDeploymentsPage,
  'teams-page': decodeTeamsPage,
  'secrets-autopilot-state': decodeAutopilotState,
  answer: decodeAnswer,
} as const;

const NAMES = new Map<unknown, keyof typeof TASKS>(Object.entries(TASKS).map(([name, task]) => [task, name as keyof typeof TASKS]));

/** The name a task is known by on the worker threads; throws for a function that is not one of TASKS. */
export function taskName(task: unknown): keyof typeof TASKS {
  const name = NAMES.get(task);
  if (name === undefined) throw new Error('a decoding task that src/collectors/decoding.ts does not list');
  return name;
}

/** Runs a task on an answer's body, its input made from the bytes by `input` (see `decodeBody`): off the collection thread from `from` bytes on. */
export function decodeTask<X, P>(
  ctx: Pick<BuildContext, 'offload' | 'turns'>,
  task: (input: X) => P,
  body: Received,
  input: (bytes: Buffer) => X,
  from: number,
  remembered?: Remembered,
): Promise<P> {
  return decodeBody(ctx, TASKS, taskName(task), body, input as never, from, remembered) as Promise<P>;
}

/**
 * The young generation of a decoding thread, in MiB, for answers of `bytes` at most (vigil's other
 * threads have 8): eight times the largest answer, a power of two from 8 to 32. `JSON.parse` builds
 * a whole answer's objects at once, alive until the answer is mapped (a gossip pool of 20,000
 * members, 7.5 MB, is 7 MB of objects, 2.4 once mapped): with too small a young generation each
 * scavenge during the parse copies everything built so far, and promotes it. At 1x, whose largest
 * answer is a pool of 5,000 members (~1.9 MB), 8 MiB cost 1.23 times the CPU of 16 for the same
 * peak. At a million series, 32 MiB once cost 1.10 times the CPU of 64, while a pool's 80,000
 * samples were listed before they were rendered and its parsed answer stayed alive until its lines
 * were encoded; rendered one sample at a time from the mapped members alone
 * (`src/collectors/agent/members.ts`), 32 spent 0.90 of the CPU of 64 for a peak 50 MiB lower. So
 * the threads are sized by the largest answer they have been given, and replaced by larger ones
 * when a larger answer comes (at most twice: 8, 16, 32), not by a constant (docs/performance.md,
 * "A pool rendered as it is read").
 */
export function decodingYoungGenerationMb(bytes: number): number {
  return powerOfTwoStep((bytes * 8) / 2 ** 20, 8, 32);
}

/**
 * The old generation's limit of a decoding thread, in MiB, for answers of `bytes` at most: a power
 * of two from 256 to 4096, at least 32 times the largest answer and 64 more. Without a limit V8
 * sizes a thread's old generation for the machine (4 GiB here) and lets garbage reach hundreds of
 * MiB before its first full collection: parsing a 5.5 MiB pool again and again, a thread's heap
 * reached 229 MiB on Node 20 and 349 on Node 24, against 132 and 194 under a limit of 512, for the
 * same CPU. What a parse keeps alive is about 9 times its answer (48 MiB ran out for 5.5), so the
 * limit leaves it three times that and more. A thread that runs out anyway ends, the tasks it had
 * in flight fail as internal errors of their targets, and the pool starts another
 * (docs/performance.md, "A decoding thread's heap limit, from its largest answer").
 */
export function decodingOldGenerationMb(bytes: number): number {
  return powerOfTwoStep((bytes * 32) / 2 ** 20 + 64, 256, 4096);
}

/** A decoding thread's young and old generations for answers of `bytes` at most. */
export const decodingLimits = (bytes: number): SizedLimits => ({
  maxYoungGenerationSizeMb: decodingYoungGenerationMb(bytes),
  maxOldGenerationSizeMb: decodingOldGenerationMb(bytes),
});

/** The worker threads that run the collectors' decoding tasks (`decoding-worker.ts`); started on first use. */
export const collectionOffloadPool = (size?: number) =>
  new OffloadPool<typeof TASKS>({ base: import.meta.url, name: 'decoding-worker', limitsFor: decodingLimits }, size);
