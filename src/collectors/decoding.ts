import { decodeBody, type Remembered, type Tasks } from '../offload/decode-body.js';
import { OffloadPool } from '../offload/pool.js';
import type { BuildContext } from '../jobs/context.js';
import { membersPoll, membersPollHolding } from './agent/members.js';
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

const DECODING: Tasks<typeof TASKS> = {
  table: TASKS,
  // A rendered group's bytes are moved to the main thread once committed: the memo holds a copy.
  holdings: { 'agent-members': membersPollHolding },
};

const NAMES = new Map<unknown, keyof typeof TASKS>(Object.entries(TASKS).map(([name, task]) => [task, name as keyof typeof TASKS]));

/** The name a task is known by on the worker threads; throws for a function that is not one of TASKS. */
export function taskName(task: unknown): keyof typeof TASKS {
  const name = NAMES.get(task);
  if (name === undefined) throw new Error('a decoding task that src/collectors/decoding.ts does not list');
  return name;
}

/** Runs a task on an answer's body (see `decodeBody`): off the collection thread from `from` bytes on. */
export function decodeTask<X, P>(
  ctx: Pick<BuildContext, 'offload' | 'turns'>,
  task: (input: X) => P,
  body: Buffer,
  input: X,
  from: number,
  remembered?: Remembered,
): Promise<P> {
  return decodeBody(ctx, DECODING, taskName(task), body, input as never, from, remembered) as Promise<P>;
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

/** The worker threads that run the collectors' decoding tasks (`decoding-worker.ts`); started on first use. */
export const collectionOffloadPool = (size?: number) =>
  new OffloadPool<typeof TASKS>(
    { base: import.meta.url, name: 'decoding-worker', resourceLimits: { maxYoungGenerationSizeMb: DECODING_YOUNG_GENERATION_MB } },
    size,
  );
