/**
 * What vigil's resident memory is made of after collections of the estate at `--scale`: the main
 * thread's heap and the buffers it holds (the /metrics body's pieces), from the benchmark's GC probe
 * after a forced full collection of the main thread, and the rest of the RSS (the collection and
 * decoding threads' heaps and young generations, the allocator's arenas). Both ways of the answers.
 *
 *   npm run build && node --import tsx bench/scale/memory-makeup.ts --scale=10 [--collections=3]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Children, rssBytes } from './children.js';
import { setFaults, vigilConfig } from './estate.js';
import { runBench } from './run-bench.js';
import { startEstate } from './start-estate.js';
import { startVigil, until } from './start-vigil.js';

const { values: flags } = parseArgs({ options: { scale: { type: 'string', default: '1' }, collections: { type: 'string', default: '3' } } });
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-memory-'));
const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;

await runBench('memory-makeup', children, scratch, async () => {
  const scale = Number(flags.scale);
  const { child: sim, estate } = await startEstate(children, scale, scratch, scale >= 10 ? { servers: 11, members: 20_000 } : {});
  const vigil = await startVigil(children, scratch, (listen) => vigilConfig(estate, listen));
  await until('vigil to be ready', async () => (await fetch(`${vigil.url}/readyz`)).ok);
  const rows: Array<Record<string, number | string>> = [];
  for (const mode of ['unchanged', 'every answer changes'] as const) {
    if (mode !== 'unchanged') await setFaults(estate, { vary: true });
    for (let i = 0; i < Number(flags.collections); i++) await vigil.collect();
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
    });
  }
  await setFaults(estate, undefined);
  await children.stop(vigil.child);
  await children.stop(sim);
  for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
});
