import { describe, expect, it } from 'vitest';
import { goDurationSeconds, statNumber, statText } from '../../../src/upstream/schema-helpers.js';

describe('stats values (every one a string)', () => {
  it.each([
    ['144', 144],
    [' 7 ', 7],
    ['-3', -3],
    ['0.25', 0.25],
    [12, 12],
  ])('reads %o as the number %o', (raw, n) => {
    expect(statNumber.parse(raw)).toBe(n);
  });

  it.each([['true'], ['Leader'], ['never'], [''], ['30s'], [null], [undefined], [{}], [Number.NaN]])('reads %o as absent, not 0 and not a failure', (raw) => {
    expect(statNumber.parse(raw)).toBeUndefined();
  });

  it('keeps text values as text and drops the others', () => {
    expect(statText.parse('Leader')).toBe('Leader');
    expect(statText.parse(3)).toBeUndefined();
  });
});

describe('Go durations', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['30s', 30],
    ['45.2ms', 0.0452],
    ['1m5s', 65],
    ['1h2m3.5s', 3723.5],
    ['250µs', 0.00025],
    ['100ns', 1e-7],
    [30_000_000_000, 30],
  ])('reads %o as %o seconds', (raw, seconds) => {
    expect(goDurationSeconds(raw)).toBeCloseTo(seconds, 12);
  });

  it.each([['never'], ['5'], ['-1s'], ['1 s'], [''], [null], [true]])('reads %o as absent', (raw) => {
    expect(goDurationSeconds(raw)).toBeUndefined();
  });
});
