import { describe, expect, it } from 'vitest';
import { admitAnswer, answersInFlight, answersInFlightBytes, UNKNOWN_ANSWER_BYTES } from '../../../src/jobs/answers-in-flight.js';
import { ByteBudget } from '../../../src/support/byte-budget.js';
import { AnswerMemo } from '../../../src/upstream/answer-memo.js';

const never = new AbortController().signal;

/** The bytes a turn asked of a budget of 1 GiB holds, once admitted. */
async function charged(admit: ReturnType<typeof admitAnswer>, budget: ByteBudget, declared: number | undefined): Promise<number> {
  const permit = await admit(declared, never);
  const held = budget.held;
  permit.release();
  return held;
}

describe('a turn of the answers in flight', () => {
  it("counts an answer as its declared length, else as its last body's, else as a guess", async () => {
    const budget = new ByteBudget(2 ** 30);
    const memo = new AnswerMemo();
    const admit = admitAnswer(budget, memo, 'members', '');
    expect(await charged(admit, budget, undefined)).toBe(UNKNOWN_ANSWER_BYTES);
    await memo.decode('members', '', Buffer.from('a'), () => Promise.resolve({ n: 1 }), undefined, 3_456_789);
    expect(await charged(admit, budget, undefined)).toBe(3_456_789);
    expect(await charged(admit, budget, 1_000)).toBe(1_000);
    // a page of another query has a last length of its own
    expect(await charged(admitAnswer(budget, memo, 'members', 'page=2'), budget, undefined)).toBe(UNKNOWN_ANSWER_BYTES);
  });

  it('is sized at twice the largest answer, a power of two from 4 to 64 MiB', () => {
    const mib = 2 ** 20;
    expect(answersInFlight().limit).toBe(4 * mib);
    // the 1x estate's largest pool (5,000 members), then the million-series estate's (20,000)
    expect([0, 1_900_000, 2 * mib + 1, 7_400_000, 16 * mib, 40 * mib].map(answersInFlightBytes)).toEqual([4, 4, 8, 16, 32, 64].map((n) => n * mib));
  });

  it('is raised by an answer larger than half of it, before the answer takes its turn', async () => {
    const budget = answersInFlight();
    const memo = new AnswerMemo();
    const small = await admitAnswer(budget, memo, 'members', 'a')(3 * 2 ** 20, never);
    // a pool of 7.4 MB comes: the budget grows to 16 MiB, so the pool is read beside the one held
    const large = admitAnswer(budget, memo, 'members', 'b')(7_400_000, never);
    expect(large).not.toBeInstanceOf(Promise);
    expect(budget.limit).toBe(16 * 2 ** 20);
    // a smaller one after it leaves the budget as it is
    (await admitAnswer(budget, memo, 'members', 'c')(10, never)).release();
    expect(budget.limit).toBe(16 * 2 ** 20);
    small.release();
    (await large).release();
  });

  it('learns the length of an answer known again, where its decoding was told none', async () => {
    const memo = new AnswerMemo();
    await memo.decode('nodes', 'a=1', Buffer.from('d'), () => Promise.resolve([]));
    expect(memo.lastLength('nodes', 'a=1')).toBeUndefined();
    await memo.decode('nodes', 'a=1', Buffer.from('d'), () => Promise.reject(new Error('known again: not decoded')), undefined, 20);
    expect(memo.lastLength('nodes', 'a=1')).toBe(20);
    expect(memo.lastLength('nodes', 'a=2')).toBeUndefined();
  });
});
