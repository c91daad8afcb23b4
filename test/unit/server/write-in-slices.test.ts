import { describe, expect, it } from 'vitest';
import { slices } from '../../../src/server/write-in-slices.js';

const sizes = (runs: Buffer[][]) => runs.map((r) => r.map((b) => b.length));

describe('slices of a body', () => {
  it('cuts a large piece into slices of at most the size, without copying', () => {
    const big = Buffer.alloc(10, 1);
    const runs = slices([big], 4);
    expect(sizes(runs)).toEqual([[4], [4], [2]]);
    expect(runs[1]![0]!.buffer).toBe(big.buffer);
  });

  it('groups small pieces into one slice and keeps their order and bytes', () => {
    const pieces = ['ab', 'c', 'defgh', 'i'].map((s) => Buffer.from(s));
    const runs = slices(pieces, 4);
    expect(sizes(runs)).toEqual([[2, 1, 1], [4], [1]]);
    expect(Buffer.concat(runs.flat()).toString()).toBe('abcdefghi');
  });

  it('makes nothing of an empty body', () => {
    expect(slices([], 4)).toEqual([]);
    expect(slices([Buffer.alloc(0)], 4)).toEqual([]);
  });
});
