import { describe, expect, it } from 'vitest';
import { admitAnswer, UNKNOWN_ANSWER_BYTES } from '../../../src/jobs/answers-in-flight.js';
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

  it('learns the length of an answer known again, where its decoding was told none', async () => {
    const memo = new AnswerMemo();
    await memo.decode('nodes', 'a=1', Buffer.from('d'), () => Promise.resolve([]));
    expect(memo.lastLength('nodes', 'a=1')).toBeUndefined();
    await memo.decode('nodes', 'a=1', Buffer.from('d'), () => Promise.reject(new Error('known again: not decoded')), undefined, 20);
    expect(memo.lastLength('nodes', 'a=1')).toBe(20);
    expect(memo.lastLength('nodes', 'a=2')).toBeUndefined();
  });
});
