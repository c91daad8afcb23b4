import { describe, expect, it } from 'vitest';
import { YOUNG_GROWTH_FACTOR } from '../../../src/support/heap-growth.js';
import { runProbe } from '../../helpers/process.js';

/** The sizes (MiB) a thread's new space took, growing to 64 MiB a semi-space, under a growth factor (test/fixtures/threads/young-growth-probe.ts). */
async function newSpaceSizes(factor: number): Promise<number[]> {
  const { stdout } = await runProbe('test/fixtures/threads/young-growth-probe.ts', [], [String(factor)]);
  return JSON.parse(stdout) as number[];
}

describe("a thread's young generation, grown again after it was given back", () => {
  it("reaches its largest in fewer, larger steps than V8's own doubling", async () => {
    const doubling = await newSpaceSizes(2);
    const vigils = await newSpaceSizes(YOUNG_GROWTH_FACTOR);
    // Both reach the thread's largest young generation: two semi-spaces of 64 MiB.
    expect(doubling.at(-1)).toBe(128);
    expect(vigils.at(-1)).toBe(128);
    expect(vigils.length).toBeLessThan(doubling.length);
    // Every growth but one capped at the largest multiplies by the factor.
    for (let i = 1; i < vigils.length; i++) expect(vigils[i]).toBe(Math.min(128, vigils[i - 1]! * YOUNG_GROWTH_FACTOR));
  }, 90_000);
});
