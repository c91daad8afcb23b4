import { ByteBudget, type Permit } from '../support/byte-budget.js';
import { powerOfTwoStep } from '../support/power-of-two.js';
import type { AnswerMemo } from '../upstream/answer-memo.js';

const MIB = 1024 * 1024;

/**
 * The bytes of the large answers (those with a decoding task) a collection reads and decodes at
 * once, from the moment an answer's headers come until it is decoded or known again: twice the
 * largest answer seen, a power of two from 4 to 64 MiB (16 at a million series, whose largest
 * answers are pools of ~7 MB; 4 at 1x, ~1.9 MB). At a million series a collection starts every
 * target at once; unbounded, every pool and listing was read at once, and up to 81 MiB of them
 * waited for a decoding thread, the peak of the collection's memory. Less than one answer (6 MiB
 * there) made the large answers take turns one by one, at 1.14 times the CPU; at 1x 4 MiB instead
 * of 16 lowered the peak by 14 MiB at the same CPU (docs/performance.md, "Answers in flight,
 * bounded", and "Young generations sized for the peak").
 */
export function answersInFlightBytes(largestAnswer: number): number {
  return powerOfTwoStep((2 * largestAnswer) / MIB, 4, 64) * MIB;
}

/**
 * What an answer that says no length (sent chunked) and was never read before is counted as until
 * read: a pool or a listing's page of a few thousand entries. Once read, it counts as its length.
 */
export const UNKNOWN_ANSWER_BYTES = MIB;

/**
 * The budget one collection thread's answers in flight share, across every target and reload: sized
 * for the smallest estate, and raised by each answer past half of it (`admitAnswer`), never lowered.
 */
export const answersInFlight = (): ByteBudget => new ByteBudget(answersInFlightBytes(0));

/**
 * Asks `budget` for a turn to read an answer to `endpoint` under `key`: counted as the length its
 * headers declare, else as the length of its last body (which the memo holds), else as
 * `UNKNOWN_ANSWER_BYTES`. An answer larger than the budget was sized for raises it first.
 */
export function admitAnswer(budget: ByteBudget, memo: AnswerMemo, endpoint: string, key: string) {
  return (declared: number | undefined, signal: AbortSignal): Permit | Promise<Permit> => {
    const bytes = declared ?? memo.lastLength(endpoint, key) ?? UNKNOWN_ANSWER_BYTES;
    budget.raiseTo(answersInFlightBytes(bytes));
    return budget.take(bytes, signal);
  };
}
