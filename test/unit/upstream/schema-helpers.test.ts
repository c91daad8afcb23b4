import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  boolish,
  goDurationSeconds,
  lenient,
  lenientBoolish,
  lenientNonEmptyString,
  lenientString,
  lenientTextPick,
  statNumber,
  statText,
} from '../../../src/upstream/schema-helpers.js';

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

describe('lenient fields read without a nested parse give what lenient(schema) gives', () => {
  const proto = JSON.parse('{"__proto__": "x", "a": "b"}') as unknown;
  // A record whose prototype carries a picked key: only own keys are read, as a record reads them.
  const inherited = Object.create({ region: 'inherited' }) as Record<string, unknown>;
  inherited.dc = 'own';
  const values: unknown[] = [
    undefined,
    null,
    '',
    'text',
    'true',
    'false',
    'TRUE',
    ' true',
    0,
    1,
    -1,
    Number.NaN,
    true,
    false,
    [],
    ['a'],
    {},
    { a: 'b', n: 1, t: true, o: {}, z: null },
    proto,
    JSON.parse('{"constructor": "c", "toString": 3}'),
    Object.create(null),
    { region: 'r', dc: 'd', build: 'b', other: 'o' },
    { region: 1, dc: null, build: ['b'], extra: true },
    JSON.parse('{"__proto__": {"region": "p"}, "build": "1.2"}'),
    inherited,
  ];
  const cases = [
    ['lenientString', lenientString, lenient(z.string())],
    ['lenientNonEmptyString', lenientNonEmptyString, lenient(z.string().min(1))],
    ['lenientBoolish', lenientBoolish, lenient(boolish)],
    [
      'lenientTextPick',
      lenientTextPick(['region', 'dc', 'build']),
      lenient(z.record(z.string(), z.unknown())).transform((v) =>
        v === undefined ? undefined : Object.fromEntries(Object.entries(v).filter((e) => ['region', 'dc', 'build'].includes(e[0]) && typeof e[1] === 'string')),
      ),
    ],
  ] as const;
  it.each(cases)('%s', (_, fast, slow) => {
    for (const v of values) {
      const a = (fast as z.ZodType).safeParse(v);
      const b = (slow as z.ZodType).safeParse(v);
      expect({ v, ok: a.success, data: a.data }).toEqual({ v, ok: b.success, data: b.data });
      if (a.success && a.data && typeof a.data === 'object') expect(Object.getPrototypeOf(a.data)).toBe(Object.getPrototypeOf(b.data));
    }
  });

  it('reads each value in an object as a field of it (a missing key is absent, not a failure)', () => {
    const obj = z.object({ s: lenientString, b: lenientBoolish });
    expect(obj.parse({})).toEqual({ s: undefined, b: undefined });
    expect(obj.parse({ s: 5, b: 'false' })).toEqual({ s: undefined, b: false });
  });
});
