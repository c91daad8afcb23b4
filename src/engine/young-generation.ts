import { COLLECTORS } from '../collectors/index.js';
import type { Config } from '../config/schema.js';
import { HEAP_GROWING_PERCENT } from '../support/heap-growth.js';
import { powerOfTwoStep } from '../support/power-of-two.js';

/** Targets of a config, of every kind. */
export function targetCount(config: Pick<Config, (typeof COLLECTORS)[number]['kind']>): number {
  return COLLECTORS.reduce((n, c) => n + (config[c.kind] as readonly unknown[]).length, 0);
}

/**
 * The collection thread's young generation, in MiB, for a config of `targets` targets: 8 MiB per 64
 * targets, a power of two from 16 to 32. A collection starts every target's jobs at once, and the
 * state of their requests in flight lives across many scavenges: with too small a young generation
 * it is copied at each and promoted, to be freed only by a full collection. At 1x (50 targets) 16
 * MiB kept the RSS after a collection 13-37 MiB lower than 32, for CPU within the runs' noise with
 * every answer changed and 1.07-1.12 times with none. At a million series (416 targets) 64 MiB once
 * spent 0.91-0.97 of the CPU of 32; since a collection reads a bounded budget of large answers at
 * once (16 MiB there: src/jobs/answers-in-flight.ts), 32 costs 1.04 times the CPU of 64 (16: 0.99
 * of 32) for a peak 75 MiB lower and an RSS after a collection 225 lower, so a larger one is no
 * longer worth its memory (docs/performance.md, "Young generations sized for the peak").
 */
export function collectionYoungGenerationMb(targets: number): number {
  return powerOfTwoStep((targets / 64) * 8, 16, 32);
}

/** The most targets of a config whose threads' old generations grow by half (`heapGrowingPercent`). */
export const SMALL_ESTATE_TARGETS = 64;

/**
 * How far every thread's old generation may grow past what its last full collection left alive,
 * in percent, for a config of `targets` targets: 50 up to `SMALL_ESTATE_TARGETS`, else
 * `HEAP_GROWING_PERCENT` (100). Marking half as often saves a large estate a tenth of a
 * collection's CPU, but a small one's heap is mostly what any vigil holds, and there the slack is
 * the peak: at 1x (50 targets), four rounds turn about, 50 % peaked at 273-300 MiB where 100 %
 * peaked at 306-324, for 1.03 times the CPU with every answer changed and 1.15 with none (1.53
 * against 1.33 times the floor). At 3x (130 targets) 50 % cost 1.16 times the CPU with no answer
 * changed (1.94-2.21 times the floor); at a million series 75 % lowered no peak
 * (docs/performance.md, "The heap's growth sized from the config").
 */
export function heapGrowingPercent(targets: number): number {
  return targets <= SMALL_ESTATE_TARGETS ? 50 : HEAP_GROWING_PERCENT;
}
