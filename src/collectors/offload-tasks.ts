import { membersPoll } from './agent/members-poll.js';
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
