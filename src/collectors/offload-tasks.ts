import { membersPoll, membersPollHolding } from './agent/members-poll.js';
import type { Holding } from '../upstream/answer-memo.js';
import { decodeTeamsPage } from '../upstream/teams/teams-page.js';

/**
 * The tasks a worker thread runs: pure functions from a structured-cloneable input to a
 * structured-cloneable output. The same functions run in the collection thread for small answers.
 */
export const TASKS = {
  'agent-members': membersPoll,
  'teams-page': decodeTeamsPage,
} as const;

export type TaskName = keyof typeof TASKS;
export type TaskInput<N extends TaskName> = Parameters<(typeof TASKS)[N]>[0];
export type TaskOutput<N extends TaskName> = ReturnType<(typeof TASKS)[N]>;

/**
 * How a task's result is held across polls when its answer comes back unchanged, for the results
 * whose memory moves on (a rendered group's bytes are moved to the main thread once committed).
 */
export const HOLDINGS: { readonly [N in TaskName]?: Holding<TaskOutput<N>> } = {
  'agent-members': membersPollHolding,
};
