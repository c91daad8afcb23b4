/**
 * What vigil's resident memory is made of after collections of the estate at `--scale`: the main
 * thread's heap and the buffers it holds (the /metrics body's pieces), from the benchmark's GC probe
 * after a forced full collection of the main thread, and the rest of the RSS (the collection and
 * decoding threads' heaps and young generations, the allocator's arenas). Both ways of the answers.
 * Each other thread's V8 heap (used, and committed) and the memory outside it that V8 counts for
 * it, as the thread itself reports them (the GC probe, with BENCH_VIGIL_THREAD_HEAPS=1): thread 1 is
 * the first collection thread, a replaced one takes the next id, and the decoding threads start
 * from the collection thread.
 *
 * `--rest=S` waits S seconds after the collections before measuring: vigil between collections, once
 * its threads have given back what they give back when idle (src/support/idle-collect.ts).
 *
 *   npm run build && node --import tsx bench/scale/memory-makeup.ts --scale=10 [--collections=3] [--rest=10]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Children, rssBytes } from './children.js';
import { setFaults, vigilConfig } from './estate.js';
import { runBench } from './run-bench.js';
import { shapeAt, startEstate } from './start-estate.js';
import { startVigil, until, type Vigil } from './start-vigil.js';

const { values: flags } = parseArgs({
  options: { scale: { type: 'string', default: '1' }, collections: { type: 'string', default: '3' }, rest: { type: 'string', default: '0' } },
});
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-memory-'));
const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;

interface ThreadHeap {
  thread: number;
  used: number;
  total: number;
  external: number;
}

/** The last heap each running thread reported: those printed in the second after now (a thread replaced since prints none). */
async function threadHeaps(child: Vigil['child']): Promise<ThreadHeap[]> {
  const mark = child.output().length;
  await new Promise((r) => setTimeout(r, 1_100));
  const last = new Map<number, ThreadHeap>();
  for (const m of child
    .output()
    .slice(mark)
    .matchAll(/thread-heap (\{.*\})/g)) {
    const t = JSON.parse(m[1] ?? '{}') as ThreadHeap;
    last.set(t.thread, t);
  }
  return [...last.values()].sort((a, b) => a.thread - b.thread);
}

await runBench('memory-makeup', children, scratch, async () => {
  const scale = Number(flags.scale);
  const { child: sim, estate } = await startEstate(children, scale, scratch, shapeAt(scale));
  process.env.BENCH_VIGIL_THREAD_HEAPS = '1';
  const vigil = await startVigil(children, scratch, (listen) => vigilConfig(estate, listen));
  await until('vigil to be ready', async () => (await fetch(`${vigil.url}/readyz`)).ok);
  const rows: Array<Record<string, number | string>> = [];
  for (const mode of ['unchanged', 'every answer changes'] as const) {
    if (mode !== 'unchanged') await setFaults(estate, { vary: true });
    for (let i = 0; i < Number(flags.collections); i++) await vigil.collect();
    await new Promise((r) => setTimeout(r, Number(flags.rest) * 1_000));
    const threads = await threadHeaps(vigil.child);
    const from = vigil.child.output().length;
    process.kill(vigil.child.pid, 'SIGUSR2');
    const m = await vigil.child.waitFor(/gc-probe (\{.*\})/, 30_000, from);
    const main = JSON.parse(m[1] ?? '{}') as { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
    const rss = rssBytes(vigil.child.pid);
    rows.push({
      mode,
      'RSS MiB': mib(rss),
      'RSS peak MiB': mib(rssBytes(vigil.child.pid, true)),
      'main heap used (total) MiB': `${mib(main.heapUsed)} (${mib(main.heapTotal)})`,
      'main buffers (external) MiB': `${mib(main.arrayBuffers)} (${mib(main.external)})`,
      'rest MiB': mib(rss - main.heapTotal - main.external),
      'other threads: heap used (total) + external MiB': threads.map((t) => `${t.thread}: ${mib(t.used)} (${mib(t.total)}) + ${mib(t.external)}`).join(', '),
    });
  }
  await setFaults(estate, undefined);
  await children.stop(vigil.child);
  await children.stop(sim);
  for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
});
