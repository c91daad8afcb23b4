import { COLLECTORS } from '../collectors/index.js';
import type { Config } from '../config/schema.js';
import { powerOfTwoStep } from '../support/power-of-two.js';

/** Targets of a config, of every kind. */
export function targetCount(config: Pick<Config, (typeof COLLECTORS)[number]['kind']>): number {
  return COLLECTORS.reduce((n, c) => n + (config[c.kind] as readonly unknown[]).length, 0);
}

/**
 * The collection thread's young generation, in MiB, for a config of `targets` targets: 8 MiB per 64
 * targets, a power of two from 16 to 64. A collection starts every target's jobs at once, and the
 * state of their requests in flight lives across many scavenges: with too small a young generation
 * it is copied at each and promoted, to be freed only by a full collection. Measured turn about
 * (`bench/collect-ab.ts`): at a million series (416 targets) 64 MiB spent 0.91-0.97 of the CPU of
 * 32, for a peak up to 100 MiB higher (14 in `memory-makeup.ts`); at 1x (50 targets) 16 MiB kept
 * the RSS after a collection 13-37 MiB lower than 32, for CPU within the runs' noise with every
 * answer changed and 1.07-1.12 times with none (docs/performance.md, "The collection thread's young
 * generation, from 16 MiB").
 */
export function collectionYoungGenerationMb(targets: number): number {
  return powerOfTwoStep((targets / 64) * 8, 16, 64);
}
