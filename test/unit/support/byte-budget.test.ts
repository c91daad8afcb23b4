import { describe, expect, it } from 'vitest';
import { ByteBudget, type Permit } from '../../../src/support/byte-budget.js';

/** Whether `p` has settled by the time the microtasks queued now have run. */
async function settled(p: unknown): Promise<boolean> {
  let done = false;
  Promise.resolve(p).then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('a byte budget', () => {
  it('admits takers while their bytes fit beside those held, and holds the next until enough is given back', async () => {
    const budget = new ByteBudget(100);
    const a = await budget.take(60);
    const b = await budget.take(40);
    expect(budget.held).toBe(100);
    const c = budget.take(30);
    expect(await settled(c)).toBe(false);
    expect(budget.waiting).toBe(1);
    a.release();
    expect(await settled(c)).toBe(true);
    expect(budget.held).toBe(70);
    b.release();
    (await c).release();
    expect(budget.held).toBe(0);
    expect(budget.waiting).toBe(0);
  });

  it('serves takers in the order they came: a small one waits behind a large one that does not fit yet', async () => {
    const budget = new ByteBudget(100);
    const first = await budget.take(50);
    const order: string[] = [];
    const large = Promise.resolve(budget.take(80)).then((p) => (order.push('large'), p));
    const small = Promise.resolve(budget.take(10)).then((p) => (order.push('small'), p));
    expect(await settled(small)).toBe(false);
    first.release();
    const [l] = await Promise.all([large, settled(small)]);
    // the large one is in; the small one fits beside it (80 + 10) and follows at once
    expect(order).toEqual(['large', 'small']);
    l.release();
    (await small).release();
  });

  it('lets a taker of more than the whole budget in alone, once nothing else is held, and nobody beside it', async () => {
    const budget = new ByteBudget(100);
    const held = await budget.take(10);
    const huge = budget.take(500);
    expect(await settled(huge)).toBe(false);
    held.release();
    const permit = await huge;
    expect(budget.held).toBe(500);
    const next = budget.take(1);
    expect(await settled(next)).toBe(false);
    permit.release();
    (await next).release();
  });

  it('charges a resized permit as resized: a larger size keeps the next out, a smaller one lets it in', async () => {
    const budget = new ByteBudget(100);
    const guessed = await budget.take(10);
    guessed.resize(95);
    expect(budget.held).toBe(95);
    const next = budget.take(20);
    expect(await settled(next)).toBe(false);
    guessed.resize(70);
    expect(await settled(next)).toBe(true);
    expect(budget.held).toBe(90);
    guessed.release();
    (await next).release();
    expect(budget.held).toBe(0);
  });

  it('gives a permit back once: a second release frees nothing that others hold', async () => {
    const budget = new ByteBudget(100);
    const a = await budget.take(40);
    const b = await budget.take(40);
    a.release();
    a.release();
    a.resize(1000);
    expect(budget.held).toBe(40);
    b.release();
    expect(budget.held).toBe(0);
  });

  it('drops a taker whose signal aborts while it waits, with the reason, and lets the one behind it in', async () => {
    const budget = new ByteBudget(100);
    const held = await budget.take(90);
    const controller = new AbortController();
    const blocked = budget.take(50, controller.signal);
    const behind = budget.take(10);
    expect(await settled(behind)).toBe(false);
    controller.abort(new Error('the run was stopped'));
    await expect(blocked).rejects.toThrow('the run was stopped');
    const permit: Permit = await behind;
    expect(budget.held).toBe(100);
    expect(budget.waiting).toBe(0);
    permit.release();
    held.release();
    expect(budget.held).toBe(0);
  });

  it('refuses a taker whose signal has already aborted, holding nothing for it', async () => {
    const budget = new ByteBudget(100);
    await expect(budget.take(1, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(budget.held).toBe(0);
  });

  it('grants at once, with no promise to wait for, when the bytes fit and nobody waits', () => {
    const budget = new ByteBudget(100);
    const now = budget.take(60);
    expect(now).not.toBeInstanceOf(Promise);
    expect(budget.take(50)).toBeInstanceOf(Promise);
    // fits, but another came first: in line behind it
    expect(budget.take(1)).toBeInstanceOf(Promise);
    (now as Permit).release();
    expect(budget.waiting).toBe(0);
  });

  it('raised, admits the waiters that now fit, in their order; never lowered', async () => {
    const budget = new ByteBudget(100);
    const a = await budget.take(100);
    const b = budget.take(50);
    const c = budget.take(50);
    const d = budget.take(10);
    budget.raiseTo(180);
    expect(budget.limit).toBe(180);
    // d would fit beside b, but c is before it
    expect([await settled(b), await settled(c), await settled(d)]).toEqual([true, false, false]);
    budget.raiseTo(150);
    expect(budget.limit).toBe(180);
    budget.raiseTo(260);
    expect([await settled(c), await settled(d)]).toEqual([true, true]);
    expect(budget.held).toBe(210);
    for (const p of [a, await b, await c, await d]) p.release();
    expect(budget.held).toBe(0);
  });

  it('is a positive number of bytes', () => {
    expect(() => new ByteBudget(0)).toThrow('a byte budget must be positive, not 0');
    expect(() => new ByteBudget(Number.NaN)).toThrow('must be positive');
  });
});
