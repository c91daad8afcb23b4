import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds, jsonDepthExceedsInTurns } from '../../src/sink/json-depth.js';

const turns = async () => undefined;

describe('JSON nesting depth', () => {
  it.each([
    ['[[[]]]', 3, false],
    ['[[[[]]]]', 3, true],
    ['{"a":{"b":[1,{"c":2}]}}', 4, false],
    ['{"a":{"b":[1,{"c":2}]}}', 3, true],
    ['["[[[[[[", "\\"[[[["]', 1, false],
    ['{"k\\\\":[[]]}', 2, true],
  ])('%s with max %i exceeds: %s', async (text, max, expected) => {
    expect(jsonDepthExceeds(text, max)).toBe(expected);
    expect(await jsonDepthExceedsInTurns(text, max, turns)).toBe(expected);
  });

  it('scans a long text in slices, strings and escapes crossing slice boundaries', async () => {
    const filler = `"${'\\"'.repeat(700_000)}[[[["`;
    const text = `[${filler},[[${filler}]]]`;
    let n = 0;
    expect(await jsonDepthExceedsInTurns(text, 3, async () => void n++)).toBe(false);
    expect(await jsonDepthExceedsInTurns(text, 2, async () => undefined)).toBe(true);
    expect(n).toBeGreaterThan(1);
  });
});
