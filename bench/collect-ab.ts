/**
 * Two vigils side by side on one estate, a collection's CPU compared: two builds (`--a`, `--b`:
 * checkouts with `dist/` built), or one build under two sets of Node flags (`--a-flags`,
 * `--b-flags`). The sides take turns against the same simulators, collection after collection
 * (the order swapped every round), so the machine's load falls on both alike: on a shared machine
 * the CPU a collection costs moves by a fifth from one minute to the next, and only the two
 * columns of one run compare.
 *
 *   npm run build && node --import tsx bench/collect-ab.ts --a=../other-checkout --b=. [--answers=changed|unchanged|churned] [--scale=10] [--rounds=4] [--only=secrets,agents,teams]
 *   node --import tsx bench/collect-ab.ts --a=. --b=. --a-flags='--max-semi-space-size=0'
 *   node --import tsx bench/collect-ab.ts --a=. --b=. --b-env='MALLOC_MMAP_THRESHOLD_=65536'
 *
 * Both sides run with the image's flags (`VIGIL_NODE_FLAGS`), then their own. A build before the
 * main thread's young generation was capped applies `--max-semi-space-size=4` to its other threads
 * too: give it `--max-semi-space-size=0`, V8's default, to compare it as it shipped.
 * `--a-env`/`--b-env` (`NAME=value ...`) set environment variables for that side's vigil alone,
 * such as the C library's allocator settings, over the image's (`VIGIL_ENV`): `--a-env='MALLOC_ARENA_MAX=16'`
 * is the C library's default on 2 cores (eight arenas per core).
 * `--answers=changed` (the default) turns the simulators' `vary` fault on: every answer's bytes
 * differ from the last, so each takes the whole path (the worst case); `unchanged` leaves them as
 * they are; `churned` changes the gossip pools' lines too (the `churn` fault: a member fails in
 * turn at each members answer), where `vary` alone changes bytes that render the same lines. The
 * default estate is the million-series one of `bench/scale.ts --size=1M`. Everything listens on
 * 127.0.0.1 and is ended by PID, also on failure.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CollectSummary } from '../src/daemon.js';
import { Children, rssBytes } from './scale/children.js';
import { setFaults, vigilConfig } from './scale/estate.js';
import { printTable, type Row } from './scale/report.js';
import { runBench } from './scale/run-bench.js';
import { processFaults } from './scale/proc-stat.js';
import { MILLION_SHAPE, startEstate } from './scale/start-estate.js';
import { startVigil, until, type Vigil } from './scale/start-vigil.js';
import { threadCpuSeconds, threadCpuSince } from './scale/thread-cpu.js';

const { values: flags } = parseArgs({
  options: {
    a: { type: 'string', default: '.' },
    b: { type: 'string', default: '.' },
    'a-flags': { type: 'string', default: '' },
    'b-flags': { type: 'string', default: '' },
    'a-env': { type: 'string', default: '' },
    'b-env': { type: 'string', default: '' },
    answers: { type: 'string', default: 'changed' },
    scale: { type: 'string', default: '10' },
    shape: { type: 'string', default: JSON.stringify(MILLION_SHAPE) },
    rounds: { type: 'string', default: '4' },
    only: { type: 'string', default: '' },
  },
});
if (!['changed', 'unchanged', 'churned'].includes(flags.answers)) throw new Error(`--answers: changed, unchanged or churned, not ${flags.answers}`);

const only = flags.only ? new Set(flags.only.split(',')) : undefined;

interface Side {
  name: 'a' | 'b';
  dir: string;
  nodeFlags: string;
  env: string;
  vigil?: Vigil;
  runs: CollectSummary[];
  /** Minor page faults of each collection (every thread): on a virtual machine a fresh page costs microseconds. */
  faults: number[];
  threads?: Map<string, number>;
}

const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-collect-ab-'));
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;

await runBench('collect-ab', children, scratch, async () => {
  const sides: Side[] = [
    { name: 'a', dir: resolve(flags.a), nodeFlags: flags['a-flags'], env: flags['a-env'], runs: [], faults: [] },
    { name: 'b', dir: resolve(flags.b), nodeFlags: flags['b-flags'], env: flags['b-env'], runs: [], faults: [] },
  ];
  const { estate } = await startEstate(children, Number(flags.scale), mkdtempSync(join(scratch, 'estate-')), JSON.parse(flags.shape) as object);
  for (const side of sides) {
    // startVigil reads where the build is and its extra flags from the environment.
    process.env.BENCH_VIGIL_DIR = side.dir;
    process.env.BENCH_VIGIL_NODE_FLAGS = side.nodeFlags;
    process.env.BENCH_VIGIL_ENV = side.env;
    const vigil = await startVigil(children, mkdtempSync(join(scratch, `${side.name}-`)), (listen) => vigilConfig(estate, listen, undefined, only));
    side.vigil = vigil;
    await until(`vigil ${side.name} to be ready`, async () => (await fetch(`${vigil.url}/readyz`)).ok, 600_000);
  }
  if (flags.answers !== 'unchanged') await setFaults(estate, { vary: true, churn: flags.answers === 'churned' });
  // One collection each first: what a reload or a first answer costs is not what is compared.
  for (const side of sides) await side.vigil!.collect();
  for (const side of sides) side.threads = threadCpuSeconds(side.vigil!.child.pid);
  for (let round = 0; round < Number(flags.rounds); round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) {
      const before = processFaults(side.vigil!.child.pid);
      side.runs.push(await side.vigil!.collect());
      side.faults.push(processFaults(side.vigil!.child.pid) - before);
    }
    process.stdout.write(`round ${round + 1}: ${sides.map((s) => `${s.name} ${s.runs.at(-1)!.cpu_seconds.toFixed(2)} s`).join(', ')}\n`);
  }
  const cpu = (s: Side) => median(s.runs.map((r) => r.cpu_seconds));
  const rows: Row[] = sides.map((s) => ({
    side: s.name,
    build: s.dir,
    'node flags': s.nodeFlags || '(as shipped)',
    environment: s.env || '(as shipped)',
    answers: flags.answers,
    series: s.runs.at(-1)?.series ?? 0,
    'collection CPU s (median)': cpu(s).toFixed(2),
    'CPU s each': s.runs.map((r) => r.cpu_seconds.toFixed(2)).join(' '),
    'minor faults k (median)': Math.round(median(s.faults) / 100) / 10,
    'wall s (median)': median(s.runs.map((r) => r.wall_seconds)).toFixed(2),
    'RSS after MiB': Math.round(rssBytes(s.vigil!.child.pid) / 2 ** 20),
    'RSS peak MiB': Math.round(rssBytes(s.vigil!.child.pid, true) / 2 ** 20),
    'CPU s by thread, all rounds': threadCpuSince(s.threads!, threadCpuSeconds(s.vigil!.child.pid)),
  }));
  printTable('a collection, two sides turn about', rows);
  process.stdout.write(`b / a, collection CPU: ${(cpu(sides[1]!) / cpu(sides[0]!)).toFixed(3)}\n`);
});
