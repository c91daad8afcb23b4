import type { Config } from '../config/schema.js';
import type { LogFormat, LogLevel } from '../support/logger.js';
import type { BodyNote } from './body.js';
import type { EngineCollect, TargetView } from './collection-engine.js';

/** What the collection thread is started with. */
export interface ThreadData {
  level: LogLevel;
  format: LogFormat;
}

/** Main thread → collection thread: one call, answered by a `reply` of the same id. */
export type Call = { id: number; call: 'apply'; config: Config } | { id: number; call: 'collect'; force: boolean } | { id: number; call: 'stop' };

/**
 * Collection thread → main thread, in the order they happened there: the body, the targets' state,
 * and replies (a reply comes after every change the call made).
 */
export type Note =
  | BodyNote
  /** Every target's view (a new config), or only those that changed (`changed`), by their place in the last whole list. */
  | { op: 'state'; targets: TargetView[]; pending: string[] | undefined }
  | { op: 'changed'; targets: TargetView[]; pending: string[] | undefined }
  /** A log line, formatted (and escaped) there, written here where the process's log goes. */
  | { op: 'log'; line: string }
  | { id: number; op: 'reply'; ok?: EngineCollect | null; error?: string };
