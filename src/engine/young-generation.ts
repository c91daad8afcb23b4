import { COLLECTORS } from '../collectors/index.js';
import type { Config } from '../config/schema.js';

/** Targets of a config, of every kind. */
export function targetCount(config: Pick<Config, (typeof COLLECTORS)[number]['kind']>): number {
  return COLLECTORS.reduce((n, c) => n + (config[c.kind] as readonly unknown[]).length, 0);
}

/**
 * The collection thread's young generation, in MiB, for a config of `targets` targets: 8 MiB per 64
 * targets, a power of two from 16 to 64. A collection starts every target's jobs at once, and the
 * state of their requests in flight lives across many scavenges: with too small a young generation
 * it is copied at each and promoted, to be freed only by a full collection. At a million series
 * (416 targets) 64 MiB spent 0.914 of the CPU of 32 MiB for 29 MiB more RSS, measured turn about;
 * at 1x (50 targets) 16 MiB saves RSS that 32 bought nothing for (docs/performance.md, "The
 * collection thread's young generation sized by the estate").
 */
export function collectionYoungGenerationMb(targets: number): number {
  const wanted = (targets / 64) * 8;
  let mb = 16;
  while (mb < wanted && mb < 64) mb *= 2;
  return mb;
}
