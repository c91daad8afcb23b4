/**
 * Where a collection's CPU goes, by function and thread: vigil started with `--cpu-prof` (one
 * profile per thread) against the estate at `--scale`, `--collections` collections run with the
 * answers as they are (or every answer changed, `--vary`), then stopped; prints each thread's
 * functions by self time. Startup is in the profiles too: run enough collections to dilute it.
 *
 *   npm run build && node --import tsx bench/scale/profile-collections.ts --scale=1 --collections=20 [--vary] [--only=secrets,agents] [--dir=/tmp/prof]
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Children } from './children.js';
import { setFaults, vigilConfig } from './estate.js';
import type { CpuProfile } from './profile-stretches.js';
import { runBench } from './run-bench.js';
import { shapeAt, startEstate } from './start-estate.js';
import { startVigil, until } from './start-vigil.js';

const { values: flags } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    collections: { type: 'string', default: '20' },
    vary: { type: 'boolean', default: false },
    dir: { type: 'string' },
    top: { type: 'string', default: '25' },
    only: { type: 'string' },
    // Other V8 flags for vigil (e.g. --trace-gc), its output then written to --output.
    'node-flags': { type: 'string', default: '' },
    output: { type: 'string' },
  },
});
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-profile-'));
const out = flags.dir ?? join(scratch, 'profiles');
mkdirSync(out, { recursive: true });

/** Self time by function (`name file:line`), in ms, of one profile. */
function selfTimes(p: CpuProfile): Map<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const f = byId.get(id)?.callFrame;
    const name = f ? `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${f.lineNumber + 1}` : '?';
    self.set(name, (self.get(name) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return self;
}

await runBench('profile-collections', children, scratch, async () => {
  const scale = Number(flags.scale);
  const shape = shapeAt(scale);
  const { child: sim, estate } = await startEstate(children, scale, scratch, shape);
  process.env.BENCH_VIGIL_NODE_FLAGS = `--cpu-prof --cpu-prof-dir=${out} --cpu-prof-interval=500 ${flags['node-flags']}`;
  const only = flags.only ? new Set(flags.only.split(',')) : undefined;
  const vigil = await startVigil(children, scratch, (listen) => vigilConfig(estate, listen, undefined, only));
  await until('vigil to be ready', async () => (await fetch(`${vigil.url}/readyz`)).ok);
  if (flags.vary) await setFaults(estate, { vary: true });
  let cpu = 0;
  const from = vigil.child.output().length;
  let wall = 0;
  for (let i = 0; i < Number(flags.collections); i++) {
    const c = await vigil.collect();
    cpu += c.cpu_seconds;
    wall += c.wall_seconds;
  }
  process.stdout.write(`${flags.collections} collections, ${cpu.toFixed(2)} CPU s, ${wall.toFixed(2)} s wall\n`);
  if (flags.output) writeFileSync(flags.output, vigil.child.output().slice(from));
  await children.stop(vigil.child);
  await children.stop(sim);
  for (const file of readdirSync(out).filter((f) => f.endsWith('.cpuprofile'))) {
    const p = JSON.parse(readFileSync(join(out, file), 'utf8')) as CpuProfile;
    const self = [...selfTimes(p)].sort((a, b) => b[1] - a[1]);
    const total = self.reduce((s, [, ms]) => s + ms, 0);
    process.stdout.write(`\n== ${file}: ${(total / 1000).toFixed(2)} s sampled\n`);
    for (const [name, ms] of self.slice(0, Number(flags.top)))
      process.stdout.write(`${ms.toFixed(0).padStart(8)} ms ${((ms / total) * 100).toFixed(1).padStart(5)} %  ${name}\n`);
  }
});
