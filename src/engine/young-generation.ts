import { COLLECTORS } from '../collectors/index.js';
import type { Config } from '../config/schema.js';
import { powerOfTwoStep } from '../support/power-of-two.js';

/** Targets of a config, of every kind. */
export function targetCount(config: Pick<Config, (typeof COLLECTORS)[number]['kind']>): number {
  return COLLECTORS.reduce((n, c) => n + (config[c.kind] as readonly unknown[]).length, 0);
}

/**
 * The collection thread's young generation, in MiB, for a config of `targets` targets: 8 MiB per 64
 * targets, a power of two from 32 to 64. A collection starts every target's jobs at once, and the
 * state of their requests in flight lives across many scavenges: with too small a young generation
 * it is copied at each and promoted, to be freed only by a full collection. Measured turn about
 * (`bench/collect-ab.ts`): at a million series (416 targets) 64 MiB spent 0.914 of the CPU of 32
 * for 29 MiB more RSS; at 1x (50 targets) 16 MiB spent 1.077 of the CPU of 32, with no RSS saved
 * that the noise would not hide (docs/performance.md, "Bodies known again, connections kept").
 */
export function collectionYoungGenerationMb(targets: number): number {
  return powerOfTwoStep((targets / 64) * 8, 32, 64);
}
