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
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Sets the growth for every thread of the process, including those started before: V8 reads it each
 * time a full collection sets the next limit. In the code rather than on `node`'s command line, so
 * that every way of starting vigil (the image, `npm start`, the `vigil` bin) runs with it.
 */
export function setHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
