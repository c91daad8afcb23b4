/**
 * Two builds of vigil side by side on one estate: the longest event-loop stall of a full collection
 * and the scrape latency (one gzip scraper, as Prometheus scrapes) idle and while collections run
 * back to back. The builds take turns against the same simulators, round after round, so the
 * machine's load falls on both alike; compare the two columns of one run, not runs of two days.
 * With `--ceiling`, each side's round also scrapes the bare server (`scale/ceiling.ts`, the same
 * bytes from memory) idle and while that side collects back to back: what the machine alone does
 * to a scrape's p99 under the same load. Beside every measured collection an idle node process times
 * its event loop as vigil does (`scale/stall-sentinel.ts`): its longest delay is the machine's part
 * of a stall, a floor no process on these cores goes below.
 *
 * `--a-flags`/`--b-flags` add node flags to one side (after the image's), to compare one build
 * under two settings (`--a=. --b=. --a-flags=--memory-reducer`). `--scale=10` is the million-series
 * estate of `bench/scale.ts --size=1M`.
 *
 *   npm run build && node --import tsx bench/stall-ab.ts --a=/path/to/other/checkout --b=. [--scale=3] [--rounds=2] [--ceiling]
 *     [--simulators-idle | --simulators-cpus=1]   # the simulators off vigil's cores: SCHED_IDLE, or kept to core 1
 *
 * Each side is a checkout with `dist/` built (`npm run build`). Everything listens on 127.0.0.1 and
 * is ended by PID, also on failure.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CollectSummary } from '../src/daemon.js';
import { Children, freePort } from './scale/children.js';
import { processFaults as minorFaults } from './scale/proc-stat.js';
import { vigilConfig, type Estate } from './scale/estate.js';
import { printTable, type Row } from './scale/report.js';
import { startCeiling } from './scale/start-ceiling.js';
import { shapeAt, startEstate } from './scale/start-estate.js';
import { startSentinel, type StallSentinel } from './scale/stall-sentinel.js';
import { VIGIL_NODE_FLAGS } from './scale/start-vigil.js';
import { load } from './scale/wrk.js';

const { values: flags } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: '.' },
    scale: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    collections: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    // the simulators stand in for services on other machines: at a lower priority they do not take vigil's core
    'simulators-nice': { type: 'string', default: '0' },
    // or on cores of their own (`taskset -c`, e.g. 1): the rest of the machine is vigil's, as in a deployment
    'simulators-cpus': { type: 'string' },
    // or only on a core no other thread wants (Linux's SCHED_IDLE)
    'simulators-idle': { type: 'boolean', default: false },
    // and with variables (`K=V K=V`) or node flags of their own, e.g. the C library keeping what it is given back
    'simulators-env': { type: 'string', default: '' },
    'simulators-flags': { type: 'string', default: '' },
    // and the scraper at a higher one (negative: root only), so that its own wait for a core is not counted
    'scraper-nice': { type: 'string' },
    ceiling: { type: 'boolean', default: false },
    // Node flags for one side alone, after the image's: one build compared under two settings
    'a-flags': { type: 'string', default: '' },
    'b-flags': { type: 'string', default: '' },
  },
  strict: true,
});
if (!flags.a) throw new Error('--a=<checkout with dist/ built> is required');
const SIDES = { a: resolve(flags.a), b: resolve(flags.b) };
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-stall-ab-'));
const say = (line: string) => process.stdout.write(`${line}\n`);
const ms = (seconds: number) => Math.round(seconds * 1e4) / 10;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? NaN;
const ratio = (over: number[], under: number[]) => Math.round((median(over) / median(under)) * 10) / 10;
const words = (text: string | undefined) => (text ?? '').split(/\s+/).filter(Boolean);

async function until(ok: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('timed out waiting for vigil');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function collect(url: string): Promise<CollectSummary> {
  const res = await fetch(`${url}/-/collect`, { method: 'POST' });
  if (!res.ok) throw new Error(`POST /-/collect: HTTP ${res.status}`);
  return (await res.json()) as CollectSummary;
}

interface Sample {
  side: 'a' | 'b';
  stalls: number[];
  /** The stall sentinel's longest timer delay during each of those collections: the machine's part. */
  machine: number[];
  /** CPU seconds of the process (every thread) per measured collection. */
  cpu: number[];
  /** Minor page faults per measured collection, in thousands: vigil's (every thread), the simulators'. */
  faults: number[];
  simulatorFaults: number[];
  idleP99: number;
  collectingP99: number;
  collectingStall: number;
  /** The bare server's p99, idle and while this side collects (`--ceiling`). */
  ceiling?: { idleP99: number; collectingP99: number };
}

/** Runs `work` while collections run back to back; resolves with its result and the collections' summaries. */
async function whileCollecting<T>(url: string, work: () => Promise<T>): Promise<{ result: T; during: CollectSummary[] }> {
  let stop = false;
  const during: CollectSummary[] = [];
  const loop = (async () => {
    while (!stop) during.push(await collect(url));
  })();
  const result = await work().finally(() => (stop = true));
  await loop;
  return { result, during };
}

const thousands = (n: number) => Math.round(n / 100) / 10;

async function measure(side: 'a' | 'b', estate: Estate, simulatorsPid: number, sentinel: StallSentinel): Promise<Sample> {
  const listen = `127.0.0.1:${await freePort()}`;
  const config = join(scratch, `vigil-${side}.yml`);
  writeFileSync(config, vigilConfig(estate, listen));
  // As the image runs it (a build from before the main thread's cap takes `--max-semi-space-size=0` after: see collect-ab.ts).
  const args = [
    ...VIGIL_NODE_FLAGS,
    ...(process.env.BENCH_VIGIL_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    ...(flags[`${side}-flags`] ?? '').split(' ').filter(Boolean),
    'dist/main.js',
    `--config.file=${config}`,
    '--log.level=warn',
    '--web.enable-lifecycle',
  ];
  // Collections back to back: a build that answers /-/collect from its last run would measure nothing.
  if (readFileSync(join(SIDES[side], 'dist/cli.js'), 'utf8').includes('web.collect-min-interval')) args.push('--web.collect-min-interval=0s');
  const vigil = children.start(`vigil ${side}`, process.execPath, args, { cwd: SIDES[side] });
  const url = `http://${listen}`;
  try {
    await until(async () => (await fetch(`${url}/readyz`)).ok);
    await collect(url); // the first collection grows every structure: not what a steady state costs
    const stalls: number[] = [];
    const machine: number[] = [];
    const cpu: number[] = [];
    const faults: number[] = [];
    const simulatorFaults: number[] = [];
    for (let i = 0; i < Number(flags.collections); i++) {
      const before = [minorFaults(vigil.pid), minorFaults(simulatorsPid)] as const;
      const { result: c, machineMs } = await sentinel.during(() => collect(url));
      faults.push(thousands(minorFaults(vigil.pid) - before[0]));
      simulatorFaults.push(thousands(minorFaults(simulatorsPid) - before[1]));
      stalls.push(ms(c.event_loop_delay_max_seconds));
      machine.push(machineMs);
      cpu.push(Math.round(c.cpu_seconds * 100) / 100);
    }
    const scrape = (target = `${url}/metrics`, serverPid = vigil.pid) =>
      load(children, {
        url: target,
        connections: 1,
        seconds: Number(flags.seconds),
        gzip: true,
        serverPid,
        ...(flags['scraper-nice'] === undefined ? {} : { nice: Number(flags['scraper-nice']) }),
      });
    // the first gzip scrape after a collection compresses what changed: warm that before the idle run
    await fetch(`${url}/metrics`, { headers: { 'accept-encoding': 'gzip' } }).then((r) => r.arrayBuffer());
    const idle = await scrape();
    const { result: busy, during } = await whileCollecting(url, () => scrape());
    const collectingStall = ms(Math.max(0, ...during.map((c) => c.event_loop_delay_max_seconds)));
    say(
      `  ${side}: stalls ${stalls.join(', ')} ms (an idle process beside: ${machine.join(', ')}), CPU ${cpu.join(', ')} s, minor faults ${faults.join(', ')}k (the simulators ${simulatorFaults.join(', ')}k); scrape p99 idle ${idle.p99_ms} ms, collecting ${busy.p99_ms} ms over ${during.length} collections; ${idle.bytes_per_response} gzip bytes`,
    );
    const ceiling = flags.ceiling ? await measureCeiling(side, url, scrape) : undefined;
    return {
      side,
      stalls,
      machine,
      cpu,
      faults,
      simulatorFaults,
      idleP99: idle.p99_ms,
      collectingP99: busy.p99_ms,
      collectingStall,
      ...(ceiling ? { ceiling } : {}),
    };
  } finally {
    await children.stop(vigil);
  }
}

/** The bare server with this side's body, scraped idle and while this side collects back to back. */
async function measureCeiling(
  side: 'a' | 'b',
  url: string,
  scrape: (target: string, serverPid: number) => ReturnType<typeof load>,
): Promise<{ idleP99: number; collectingP99: number }> {
  const bodyFile = join(scratch, `body-${side}.txt`);
  writeFileSync(bodyFile, await (await fetch(`${url}/metrics`)).text());
  const ceiling = await startCeiling(children, bodyFile);
  try {
    const idle = await scrape(ceiling.url, ceiling.child.pid);
    const { result: busy, during } = await whileCollecting(url, () => scrape(ceiling.url, ceiling.child.pid));
    say(
      `  ${side}: the bare server's scrape p99 idle ${idle.p99_ms} ms, while ${side} collects ${busy.p99_ms} ms over ${during.length} collections; ${idle.bytes_per_response} gzip bytes`,
    );
    return { idleP99: idle.p99_ms, collectingP99: busy.p99_ms };
  } finally {
    await children.stop(ceiling.child);
  }
}

try {
  const { child: simulators, estate } = await startEstate(children, Number(flags.scale), scratch, shapeAt(Number(flags.scale)), {
    nice: Number(flags['simulators-nice'] ?? '0'),
    cpus: flags['simulators-cpus'],
    idle: flags['simulators-idle'],
    env: words(flags['simulators-env']),
    flags: words(flags['simulators-flags']),
  });
  say(`a = ${SIDES.a}\nb = ${SIDES.b}\nscale ${flags.scale}, ${flags.rounds} rounds`);
  const sentinel = await startSentinel(children);
  const samples: Sample[] = [];
  for (let r = 0; r < Number(flags.rounds); r++) {
    // a, b, then b, a: neither side always runs on the warmer machine
    for (const side of r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) samples.push(await measure(side, estate, simulators.pid, sentinel));
  }
  const rows: Row[] = (['a', 'b'] as const).map((side) => {
    const mine = samples.filter((s) => s.side === side);
    return {
      side,
      'stall median ms': median(mine.flatMap((s) => s.stalls)),
      'stall max ms': Math.max(...mine.flatMap((s) => s.stalls)),
      'idle process stall median ms': median(mine.flatMap((s) => s.machine)),
      'idle process stall max ms': Math.max(...mine.flatMap((s) => s.machine)),
      'collection CPU s': median(mine.flatMap((s) => s.cpu)),
      'minor faults k': median(mine.flatMap((s) => s.faults)),
      'simulators minor faults k': median(mine.flatMap((s) => s.simulatorFaults)),
      'scrape p99 idle ms': median(mine.map((s) => s.idleP99)),
      'scrape p99 collecting ms': median(mine.map((s) => s.collectingP99)),
      'collecting / idle': ratio(
        mine.map((s) => s.collectingP99),
        mine.map((s) => s.idleP99),
      ),
      ...(flags.ceiling
        ? {
            'bare server p99 idle ms': median(mine.map((s) => s.ceiling?.idleP99 ?? NaN)),
            'bare server p99 collecting ms': median(mine.map((s) => s.ceiling?.collectingP99 ?? NaN)),
            'bare server collecting / idle': ratio(
              mine.map((s) => s.ceiling?.collectingP99 ?? NaN),
              mine.map((s) => s.ceiling?.idleP99 ?? NaN),
            ),
          }
        : {}),
    };
  });
  printTable(`stall and scrape p99, each side's median over ${flags.rounds} rounds (load ${readFileSync('/proc/loadavg', 'utf8').trim()})`, rows);
} finally {
  await children.stopAll();
  rmSync(scratch, { recursive: true, force: true });
}
