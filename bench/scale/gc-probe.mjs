// Loaded into vigil by the benchmark only (`node --expose-gc --import ./bench/scale/gc-probe.mjs
// dist/main.js`), never shipped: on SIGUSR2 it forces a full garbage collection and prints the heap
// left, so the leak check compares live memory rather than garbage not yet collected.
import { isMainThread, threadId } from 'node:worker_threads';
import { getHeapStatistics } from 'node:v8';

process.on('SIGUSR2', () => {
  globalThis.gc();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  process.stderr.write(`gc-probe ${JSON.stringify({ rss, heapUsed, heapTotal, external, arrayBuffers })}\n`);
});

// With BENCH_VIGIL_THREAD_HEAPS=1 (bench/scale/memory-makeup.ts), each of vigil's other threads
// (collection, decoding) prints its V8 heap every 500 ms, which Node 20 does not report per thread
// to the main thread: `thread-heap {"thread":1,"used":...,"total":...,"external":...}` in bytes.
if (!isMainThread && process.env.BENCH_VIGIL_THREAD_HEAPS === '1') {
  setInterval(() => {
    const s = getHeapStatistics();
    const line = { thread: threadId, used: s.used_heap_size, total: s.total_heap_size, external: s.external_memory };
    process.stderr.write(`thread-heap ${JSON.stringify(line)}\n`);
  }, 500).unref();
}
