import { describe, expect, it } from 'vitest';
import { RUN_BYTES, joinRuns, type Part, type Run } from '../../../src/metrics/runs.js';
import { Chunk } from '../../../src/metrics/snapshot.js';

/** A group of `bytes` bytes (one line of that length) under `key`. */
const part = (key: string, bytes: number, fill = 'a'): Part => ({ key, chunk: new Chunk(Buffer.from(`${fill.repeat(bytes - 1)}\n`), 1) });

/** 200 groups of 3-9 KiB, as a family of per-target groups is. */
function family(): Part[] {
  return Array.from({ length: 200 }, (_, i) => part(`t${i}`, 3000 + ((i * 2654435761) % 6000)));
}

const text = (pieces: readonly Part[]) => Buffer.concat(pieces.map((p) => p.chunk.bytes)).toString();
const fresh = (before: readonly Part[], after: readonly Part[]) => {
  const old = new Set(before.map((p) => p.chunk));
  return after.filter((p) => !old.has(p.chunk));
};

describe('joining small parts into runs', () => {
  it('lays out every part once, in order, small ones in runs of at least RUN_BYTES and large ones alone', () => {
    const parts = [...family().slice(0, 50), part('big', RUN_BYTES * 3, 'b'), ...family().slice(50, 80)];
    const laid = joinRuns(parts, new Map());
    expect(text(laid.pieces)).toBe(text(parts));
    expect(laid.series).toBe(parts.length);
    const big = laid.pieces.find((p) => p.key === 'big');
    expect(big?.chunk).toBe(parts[50]!.chunk);
    // every run but the one before the large part and the last is at least RUN_BYTES
    const runs = laid.pieces.filter((p) => p.key !== 'big');
    expect(runs.slice(0, -1).filter((p) => p.chunk.length < RUN_BYTES).length).toBeLessThanOrEqual(1);
  });

  it('makes only the run of a part that changed new, though its length changed', () => {
    // 100 groups of 5,000 bytes: 14 make a run (13 are 65,000 bytes, under RUN_BYTES)
    const parts = Array.from({ length: 100 }, (_, i) => part(`t${i}`, 5000));
    const first = joinRuns(parts, new Map());
    expect(first.pieces).toHaveLength(8);
    // the 4th group 600 bytes longer (a target's new series): 13 groups would then make a run, and
    // with runs cut afresh, every later cut would move
    const changed = parts.map((p, i) => (i === 3 ? part(p.key, p.chunk.length + 600, 'c') : p));
    const second = joinRuns(changed, first.runs);
    expect(text(second.pieces)).toBe(text(changed));
    const made = fresh(first.pieces, second.pieces);
    expect(made).toHaveLength(1);
    expect(text(made)).toContain('c\n');
    // unchanged, everything is reused as it was
    expect(fresh(second.pieces, joinRuns(changed, second.runs).pieces)).toHaveLength(0);
  });

  it('finds its old cuts again after a part came and one went', () => {
    const parts = family();
    const first = joinRuns(parts, new Map());
    const moved = [...parts.slice(0, 5), part('new', 4000, 'n'), ...parts.slice(5, 120), ...parts.slice(121)];
    const second = joinRuns(moved, first.runs);
    expect(text(second.pieces)).toBe(text(moved));
    // the run the new part joined, the one that lost a part, and at most a new one between
    expect(fresh(first.pieces, second.pieces).length).toBeLessThanOrEqual(3);
  });

  it('lays a kept run out anew once it grew past its bound', () => {
    const parts = family();
    const first = joinRuns(parts, new Map());
    const run = [...first.runs.values()].find((r) => r.keys.length > 3) as Run;
    const grown = parts.map((p) => (run.keys.includes(p.key) ? part(p.key, RUN_BYTES - 1, 'g') : p));
    const second = joinRuns(grown, first.runs);
    expect(text(second.pieces)).toBe(text(grown));
    expect(second.pieces.every((p) => p.chunk.length <= 4 * RUN_BYTES)).toBe(true);
  });
});
