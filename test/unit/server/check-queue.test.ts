import { describe, expect, it } from 'vitest';
import { CheckQueue, type Lane } from '../../../src/server/check-queue.js';

/** The password checks waiting for the bcrypt thread: lanes, the suspects' share, displacement. */
describe('the queue of password checks', () => {
  const fill = (q: CheckQueue<string>, lane: Lane, n: number) => Array.from({ length: n }, (_, i) => q.offer(`${lane}-${i}`, lane));
  const takeAll = (q: CheckQueue<string>) => Array.from({ length: q.size }, () => q.take());

  it('runs trusted checks first, then clean, then suspect, oldest first within a lane', () => {
    const q = new CheckQueue<string>({ waiting: 10, suspect: 5 });
    q.offer('s1', 'suspect');
    q.offer('c1', 'clean');
    q.offer('t1', 'trusted');
    q.offer('s2', 'suspect');
    q.offer('c2', 'clean');
    expect(takeAll(q)).toEqual(['t1', 'c1', 'c2', 's1', 's2']);
    expect(q.take()).toBeUndefined();
  });

  it('keeps room for checks from addresses without failures: suspects fill only their share', () => {
    const q = new CheckQueue<string>({ waiting: 6, suspect: 3 });
    expect(fill(q, 'suspect', 5)).toEqual([undefined, undefined, undefined, 'suspect-3', 'suspect-4']);
    expect(fill(q, 'clean', 3)).toEqual([undefined, undefined, undefined]);
    expect(q.size).toBe(6);
  });

  it('lets a check displace the newest check of a lower lane when full, and turns it away when none is lower', () => {
    const q = new CheckQueue<string>({ waiting: 4, suspect: 2 });
    fill(q, 'suspect', 2);
    fill(q, 'clean', 2);
    expect(q.offer('clean-new', 'clean')).toBe('suspect-1');
    expect(q.offer('trusted-new', 'trusted')).toBe('suspect-0');
    // No suspect left: a clean check finds no lower one, a trusted one displaces the newest clean.
    expect(q.offer('clean-late', 'clean')).toBe('clean-late');
    expect(q.offer('trusted-late', 'trusted')).toBe('clean-new');
    expect(q.offer('suspect-late', 'suspect')).toBe('suspect-late');
    expect(takeAll(q)).toEqual(['trusted-new', 'trusted-late', 'clean-0', 'clean-1']);
  });

  it('drains whole', () => {
    const q = new CheckQueue<string>();
    fill(q, 'clean', 3);
    fill(q, 'suspect', 2);
    expect(q.drain()).toHaveLength(5);
    expect(q.size).toBe(0);
  });
});
