import { ByteBudget, type Permit } from '../support/byte-budget.js';
import type { AnswerMemo } from '../upstream/answer-memo.js';

/**
 * The bytes of the large answers (those with a decoding task) a collection reads and decodes at
 * once: from the moment an answer's headers come until it is decoded or known again. At a million
 * series a collection starts every target at once; unbounded, every pool and listing was read at
 * once, and up to 81 MiB of them waited for a decoding thread, the peak of the collection's memory
 * (docs/performance.md, "Answers in flight, bounded").
 */
export const ANSWERS_IN_FLIGHT_BYTES = 16 * 1024 * 1024;

/**
 * What an answer that says no length (sent chunked) and was never read before is counted as until
 * read: a pool or a listing's page of a few thousand entries. Once read, it counts as its length.
 */
export const UNKNOWN_ANSWER_BYTES = 1024 * 1024;

/** The budget one collection thread's answers in flight share, across every target and reload. */
export const answersInFlight = (): ByteBudget => new ByteBudget(ANSWERS_IN_FLIGHT_BYTES);

/**
 * Asks `budget` for a turn to read an answer to `endpoint` under `key`: counted as the length its
 * headers declare, else as the length of its last body (which the memo holds), else as
 * `UNKNOWN_ANSWER_BYTES`.
 */
export function admitAnswer(budget: ByteBudget, memo: AnswerMemo, endpoint: string, key: string) {
  return (declared: number | undefined, signal: AbortSignal): Permit | Promise<Permit> =>
    budget.take(declared ?? memo.lastLength(endpoint, key) ?? UNKNOWN_ANSWER_BYTES, signal);
}
