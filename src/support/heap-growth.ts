import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets each thread's old generation grow past what a full collection left alive before
 * the next one starts, in percent (V8's own choice, for a heap growing as vigil's threads do, was
 * about 10 %).
 *
 * A collection of a large estate promotes the state of hundreds of requests in flight and reads
 * hundreds of megabytes of answers: with V8's choice the collection thread marked its whole heap
 * (~70 MB at a million series) every 4-7 MB promoted, 20-30 times a collection, about a fifth of the
 * collection's CPU. At 100 % it marks half as often (10-12 % less CPU a collection at a million
 * series); a heap may hold up to twice what is alive, yet the RSS measured turn about did not rise
 * (docs/performance.md, "Under 8 CPU seconds with every answer changed"; `bench/collect-ab.ts`).
 * A small estate's first config lowers it (`heapGrowingPercent` in src/engine/young-generation.ts).
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * By how much V8 multiplies a young generation that its survivors outgrow (V8's own is 2). An idle
 * thread gives its young generation back (src/support/idle-collect.ts), and the next collection
 * grows it again to the thread's largest (up to 32 MiB for the collection thread and for a decoding
 * thread given answers of over 2 MiB). By doubling that takes a growth per step (the new space went
 * 4, 8, 16, ... 128 MiB in test/unit/support/heap-growth.test.ts), with the answers' objects
 * promoted to the old generation meanwhile, which cost a collection at a million series 1.45 times
 * the CPU; by 8 it took one (16 to 128 MiB) and 1.05 times the CPU (docs/performance.md, "Young
 * generations given back between collections").
 */
export const YOUNG_GROWTH_FACTOR = 8;

/**
 * Sets both growths for every thread of the process, including those started before: V8 reads each
 * when it sets the next limit or grows a young generation. In the code rather than on `node`'s
 * command line, so that every way of starting vigil (the image, `npm start`, the `vigil` bin) runs
 * with them.
 */
export function setHeapGrowth(percent = HEAP_GROWING_PERCENT, youngFactor = YOUNG_GROWTH_FACTOR): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  setFlagsFromString(`--semi-space-growth-factor=${youngFactor}`);
}
