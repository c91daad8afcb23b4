/**
 * What the RSS is made of at its highest, by kind of mapping (`/proc/<pid>/smaps`): V8's heap pages
 * (256 KiB each, every thread's), the C library's heap and arenas (the buffers: answers, rendered
 * lines, the body's pieces), node's own code, the rest. Read at start (the upstreams held back), once
 * ready, and at the highest RSS sampled every 20 ms through `--collections` collections with every
 * answer changed; also each of vigil's other threads' heap as it last reported it (the GC probe,
 * with BENCH_VIGIL_THREAD_HEAPS=1).
 *
 *   npm run build && node --import tsx bench/scale/peak-makeup.ts --scale=1 [--collections=4]
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Children, rssBytes } from './children.js';
import { setFaults, vigilConfig } from './estate.js';
import { runBench } from './run-bench.js';
import { shapeAt, startEstate } from './start-estate.js';
import { startVigil, until, type Vigil } from './start-vigil.js';

const { values: flags } = parseArgs({ options: { scale: { type: 'string', default: '1' }, collections: { type: 'string', default: '4' } } });
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-makeup-'));
const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;

/** A mapping's kind: node's binary, another file, the C library's `[heap]`, or anonymous memory by its size (V8's pages are 256 KiB, glibc's arenas up to 64 MiB). */
function kind(name: string, size: number): string {
  if (name.endsWith('/node')) return 'node binary';
  if (name.startsWith('/')) return 'other files';
  if (name) return name;
  return size >= 2 ** 20 ? `anonymous ${Math.round(size / 2 ** 20)} MiB` : `anonymous ${Math.round(size / 1024)} KiB`;
}

/** Resident bytes by kind of mapping. */
export function residentByKind(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let current = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) current = kind(mapping[3] ?? '', parseInt(mapping[2] ?? '0', 16) - parseInt(mapping[1] ?? '0', 16));
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out.set(current, (out.get(current) ?? 0) + Number(rss[1]) * 1024);
  }
  return out;
}

function show(when: string, vigil: Vigil, resident: Map<string, number>): void {
  const total = [...resident.values()].reduce((a, b) => a + b, 0);
  const kinds = [...resident].filter(([, b]) => b >= 2 ** 20).sort((a, b) => b[1] - a[1]);
  console.log(`${when}: ${mib(total)} MiB: ${kinds.map(([k, b]) => `${k} ${mib(b)}`).join(', ')}`);
  const heaps = new Map<number, string>();
  for (const m of vigil.child.output().matchAll(/thread-heap (\{.*\})/g)) {
    const t = JSON.parse(m[1] ?? '{}') as { thread: number; used: number; total: number; external: number };
    heaps.set(t.thread, `thread ${t.thread}: heap ${mib(t.used)} (${mib(t.total)}) + ${mib(t.external)} outside`);
  }
  if (heaps.size) console.log(`  ${[...heaps.values()].join('; ')}`);
}

await runBench('peak-makeup', children, scratch, async () => {
  const scale = Number(flags.scale);
  const { child: sim, estate } = await startEstate(children, scale, scratch, shapeAt(scale));
  await setFaults(estate, { delay_ms: 2_000 });
  process.env.BENCH_VIGIL_THREAD_HEAPS = '1';
  const vigil = await startVigil(children, scratch, (listen) => vigilConfig(estate, listen));
  const pid = vigil.child.pid;
  await new Promise((r) => setTimeout(r, 500));
  show('start', vigil, residentByKind(pid));
  await setFaults(estate, undefined);
  await until('vigil to be ready', async () => (await fetch(`${vigil.url}/readyz`)).ok);
  show('ready', vigil, residentByKind(pid));
  await setFaults(estate, { vary: true });
  let highest = 0;
  let atHighest = new Map<string, number>();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rss = rssBytes(pid);
      if (rss > highest) [highest, atHighest] = [rss, residentByKind(pid)];
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  for (let i = 0; i < Number(flags.collections); i++) await vigil.collect();
  sampling = false;
  await sampler;
  show('highest, every answer changed', vigil, atHighest);
  await setFaults(estate, undefined);
  await children.stop(vigil.child);
  await children.stop(sim);
});
