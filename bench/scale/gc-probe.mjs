// Loaded into vigil by the benchmark only (`node --expose-gc --import ./bench/scale/gc-probe.mjs
// dist/main.js`), never shipped: on SIGUSR2 it forces a full garbage collection and prints the heap
// left, so the leak check compares live memory rather than garbage not yet collected.
process.on('SIGUSR2', () => {
  globalThis.gc();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  process.stderr.write(`gc-probe ${JSON.stringify({ rss, heapUsed, heapTotal, external, arrayBuffers })}\n`);
});
