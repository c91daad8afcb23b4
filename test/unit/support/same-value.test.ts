import { describe, expect, it } from 'vitest';
import { sameValue } from '../../../src/support/same-value.js';

class Tally {
  #count = 0;
  constructor(count: number) {
    this.#count = count;
  }
  get count(): number {
    return this.#count;
  }
}

describe('sameValue', () => {
  it('finds plain data equal all the way down', () => {
    const a = { pages: 3, kept: [{ name: 'x', id: 't-1' }], by: new Map([['secret', 2]]), flags: new Set(['a']), at: new Date(5), body: Buffer.from('ab') };
    const b = {
      pages: 3,
      kept: [{ name: 'x', id: 't-1' }],
      by: new Map([['secret', 2]]),
      flags: new Set(['a']),
      at: new Date(5),
      body: new Uint8Array([97, 98]),
    };
    expect(sameValue(a, { ...a })).toBe(true);
    expect(sameValue({ ...a, body: b.body }, a)).toBe(false); // a Buffer is not a Uint8Array
    expect(sameValue(b, { ...b, body: new Uint8Array([97, 98]) })).toBe(true);
    expect(sameValue(NaN, NaN)).toBe(true);
    expect(sameValue(undefined, undefined)).toBe(true);
  });

  it('tells a difference anywhere', () => {
    const base = { n: 1, list: [1, 2, { deep: ['x'] }], by: new Map([['k', { v: 1 }]]) };
    expect(sameValue(base, { ...base, n: 2 })).toBe(false);
    expect(sameValue(base, { ...base, list: [1, 2, { deep: ['y'] }] })).toBe(false);
    expect(sameValue(base, { ...base, list: [1, 2] })).toBe(false);
    expect(sameValue(base, { ...base, by: new Map([['k', { v: 2 }]]) })).toBe(false);
    expect(sameValue(base, { ...base, by: new Map([['j', { v: 1 }]]) })).toBe(false);
    expect(sameValue({ a: undefined }, { b: undefined })).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameValue([], {})).toBe(false);
    expect(sameValue(0, -0)).toBe(true);
    expect(sameValue('1', 1)).toBe(false);
    expect(sameValue(null, {})).toBe(false);
    expect(sameValue(new Date(1), new Date(2))).toBe(false);
    expect(sameValue(new Set([1]), new Set([2]))).toBe(false);
    expect(sameValue(new Uint8Array([1]), new Uint8Array([2]))).toBe(false);
  });

  it('takes an instance of a class, or a function, as the same only as itself', () => {
    const t = new Tally(3);
    expect(sameValue(t, t)).toBe(true);
    // their own keys are alike (none), what they hold is not
    expect(sameValue(new Tally(3), new Tally(4))).toBe(false);
    expect(sameValue(new Tally(3), new Tally(3))).toBe(false);
    expect(sameValue({ f: () => 1 }, { f: () => 1 })).toBe(false);
    expect(sameValue(new Set([{ a: 1 }]), new Set([{ a: 1 }]))).toBe(false);
  });

  it('ends on a cycle, and on a structure deeper than an answer is', () => {
    const a: Record<string, unknown> = { n: 1 };
    a.self = a;
    const b: Record<string, unknown> = { n: 1 };
    b.self = b;
    expect(sameValue(a, b)).toBe(false);
    expect(sameValue(a, a)).toBe(true);
    const nest = (n: number): unknown => (n === 0 ? 'leaf' : { next: nest(n - 1) });
    expect(sameValue(nest(5), nest(5))).toBe(true);
    expect(sameValue(nest(40), nest(40))).toBe(false);
  });
});
