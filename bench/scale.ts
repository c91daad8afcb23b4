/**
 * What a scrape and a collection cost when the estate is large (issue 7), measured against the
 * physical ceiling (a bare Node `http` server answering the same bytes from memory) and a Go peer
 * (Debian's prometheus-pushgateway holding the same series), all in one run on this machine.
 *
 *   npm run bench         # 1/10, 1/3, full (~125k series), 3x, 8x and 1M (~1,000,000 series); half an hour
 *   npm run bench -- --size=1M       # one size of the plan (or several: --size=full,3x,8x,1M)
 *   npm run bench:smoke   # 1/100 size, seconds: keeps the harness from rotting (CI)
 *   npm run bench -- --size=1x,3x,8x,1M --collections-only   # only the collections, answers unchanged and all changed
 *   npm run bench -- --size=1M --collections-only --shares   # and each endpoint's share of a collection's CPU
 *   npm run build && node --import tsx bench/scale.ts --smoke --collections-only --out=/tmp/floor-smoke   # the same at 1/100, seconds
 *
 * Each way of the answers also has its floor (bench/scale/floor.ts): the requests of one vigil
 * collection, recorded in the estate child (bench/scale/request-log.ts), are replayed by a child of
 * their own (bench/scale/floor-main.ts) with vigil's HTTP client, each body read and SHA-256-digested
 * as vigil's answer memo does, nothing else. The floor's replays and vigil's collections take turns,
 * so a slower stretch of the machine weighs on both. Table 7 gives the floor's CPU and vigil's as a
 * multiple of it, turn by turn and their median (goal: answers unchanged <= 2x the floor, every
 * answer changed <= 5x), and scale-floor-endpoints.json where the requests and bytes go per endpoint class.
 * Beside each of those collections an idle node process times its event loop as vigil does
 * (bench/scale/stall-sentinel.ts): its longest delay is what the machine alone does to an event
 * loop then, vigil's stall's floor.
 *
 * Each process is its own: the simulators (bench/scale/estate-main.ts), vigil (`node dist/main.js`,
 * built first), the ceiling, the pushgateway, and wrk. Everything listens on 127.0.0.1 and is ended
 * by PID, also on failure. Numbers are printed as tables and written to bench/results/scale-*.json;
 * only something breaking (a process that does not start, a failed job, an error answer) fails it.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { CollectSummary } from '../src/daemon.js';
import { Children, rssBytes } from './scale/children.js';
import { answersRows, bothWays } from './scale/answers.js';
import { report, type SizeResult } from './scale/tables.js';
import { endpointShares } from './scale/endpoint-shares.js';
import { setFaults, vigilConfig, type EstateShape } from './scale/estate.js';
import { floorLine, floorTurns } from './scale/floor.js';
import { leakAndLoad, NO_PROMETHEUS, type LoadPlan } from './scale/leak-and-load.js';
import { PhasePeaks } from './scale/phase-peaks.js';
import type { Row } from './scale/report.js';
import { runBench } from './scale/run-bench.js';
import { MILLION_SHAPE, startEstate } from './scale/start-estate.js';
import { startSentinel, type StallSentinel } from './scale/stall-sentinel.js';
import { startVigil, until } from './scale/start-vigil.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
    size: { type: 'string' },
    // A collection both ways (answers unchanged, every answer changed), without the load, the scrapes and the leak check.
    'collections-only': { type: 'boolean', default: false },
    // What each endpoint costs a collection, after the rest (endpoint-shares.ts): one vigil reloaded without each in turn.
    shares: { type: 'boolean', default: false },
  },
  strict: true,
});

interface Size extends LoadPlan {
  label: string;
  scale: number;
  /** Parts of the estate's shape that do not follow the scale. */
  shape?: Partial<EstateShape>;
}

const PLAN: readonly Size[] = flags.smoke
  ? [{ label: '1/100', scale: 0.01, seconds: 1, leakCycles: 20, delayMs: 100 }]
  : [
      { label: '1/10', scale: 0.1, seconds: 5 },
      // 500 cycles at full size (~0.5 s each) do not fit the 10-minute budget with the rest
      { label: '1/3', scale: 1 / 3, seconds: 5, leakCycles: 500 },
      { label: 'full', scale: 1, seconds: 10, delayMs: 250 },
      // The largest agents in the field: 5 servers of 15,000 members each (issue 16)
      { label: '3x', scale: 3, seconds: 10, noPeer: true },
      // Pools of 40,000 members, of which the default member cap keeps 20,000: ~535,000 series (issue 26)
      { label: '8x', scale: 8, seconds: 10, noPeer: true },
      // A million series: 11 servers with pools at the member cap, the rest of the estate at 10x (issue 26)
      { label: '1M', scale: 10, seconds: 10, noPeer: true, shape: MILLION_SHAPE },
    ];
const OUT = flags.out ?? join(ROOT, flags.smoke ? 'bench/results/smoke' : 'bench/results');
const QUIET_COLLECTIONS = 3;
/** Collections each way of the answers, each followed by a replay of the floor (bench/scale/floor.ts). */
const TURNS = 5;
const LOAD_CONNECTIONS = 4;

const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const say = (line: string) => process.stdout.write(`${line}\n`);

async function measure(size: Size, sentinel: StallSentinel): Promise<SizeResult> {
  const dir = mkdtempSync(join(scratch, 'estate-'));
  const { child: sim, estate } = await startEstate(children, size.scale, dir, size.shape);
  const s = estate.shape;
  say(
    `\n== ${size.label}: ${s.pairs * 2} secrets clusters, ${s.servers} servers x ${s.members} members, ${s.clients} clients, ` +
      `${s.organizations} organizations x ${s.teams} teams`,
  );

  // Hold the upstreams back while vigil starts, so "after start" is before any data arrived.
  await setFaults(estate, { delay_ms: 2_000 });
  const vigil = await startVigil(children, scratch, (listen) => vigilConfig(estate, listen));
  await new Promise((r) => setTimeout(r, 500));
  const rssStart = rssBytes(vigil.child.pid);
  const heapStart = await vigil.heapAfterGc();
  await setFaults(estate, undefined);
  await until('vigil to be ready (first collection done)', async () => (await fetch(`${vigil.url}/readyz`)).ok);
  const rssFirst = rssBytes(vigil.child.pid);
  const peaks = new PhasePeaks(vigil.child.pid);
  peaks.mark('first');
  const heapFirst = await vigil.heapAfterGc();

  const collections: CollectSummary[] = [];
  for (let i = 0; i < QUIET_COLLECTIONS; i++) collections.push(await vigil.collect());
  const text = (await vigil.metrics()).toString();
  const series = text.split('\n').filter((l) => l && !l.startsWith('#')).length;
  const gzipBytes = (await vigil.metrics(true)).length;
  say(`series: ${series} (snapshot ${collections.at(-1)?.series}), /metrics ${text.length} bytes, gzip ${gzipBytes} bytes`);
  const floor = () => floorTurns(children, sim, () => vigil.collect());
  const vary = (on: boolean) => {
    if (on) peaks.mark('unchanged');
    return setFaults(estate, on ? { vary: true } : undefined);
  };
  const answers = await bothWays(vigil, vary, TURNS, { floor, sentinel });
  peaks.mark('changed');
  for (const row of answersRows(size.label, series, answers, peaks.highest())) say(`  ${JSON.stringify(row)}`);
  for (const a of answers)
    if (a.floor)
      say(
        floorLine(
          a.mode,
          a.collections.map((c) => c.cpu_seconds),
          a.floor,
        ),
      );

  const memory: Row = {
    size: size.label,
    series,
    rss_start_mib: mib(rssStart),
    rss_after_first_mib: mib(rssFirst),
    heap_after_gc_start_mib: mib(heapStart),
    heap_after_gc_first_mib: mib(heapFirst),
  };
  const setting = { children, scratch, connections: LOAD_CONNECTIONS, smoke: flags.smoke };
  const loaded = flags['collections-only']
    ? { load: [], latency: [], prometheus: NO_PROMETHEUS }
    : await leakAndLoad(setting, size, vigil, estate, text, memory, peaks);
  const rssPeak = peaks.highest();
  memory.rss_peak_mib = mib(rssPeak);
  // Each phase's own peak: the first collection, the collections each way, then the leak check, wrk's load, the scrapes while collecting, Prometheus
  for (const [phase, peak] of Object.entries(peaks.byPhaseMib())) memory[`rss_peak_${phase}_mib`] = peak;
  const shares = flags.shares ? await endpointShares(vigil, estate, size.label) : [];
  await children.stop(vigil.child);
  await children.stop(sim);
  return {
    size: size.label,
    shape: s,
    series,
    bytes: text.length,
    gzip_bytes: gzipBytes,
    memory,
    collections,
    ...loaded,
    rss_peak_bytes: rssPeak,
    answers,
    shares,
  };
}

/** The tools the benchmark drives; missing ones are named with the command that installs them. */
function preflight(): void {
  const tools = flags['collections-only'] ? [] : ['/usr/bin/wrk', '/usr/bin/prometheus-pushgateway', '/usr/bin/prometheus'];
  const missing = tools.filter((p) => !existsSync(p));
  if (missing.length) throw new Error(`missing ${missing.join(', ')}: apt-get install wrk prometheus-pushgateway prometheus`);
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: npm run build');
}

await runBench('bench', children, scratch, async () => {
  preflight();
  const results: SizeResult[] = [];
  // --size=full runs one size of the plan (when working on one number), --size=full,3x those two
  const chosen = flags.size?.split(',');
  const plan = PLAN.filter((p) => !chosen || chosen.includes(p.label));
  if (!plan.length) throw new Error(`no size ${flags.size} in the plan: ${PLAN.map((p) => p.label).join(', ')}`);
  // an idle process beside vigil: its event loop's longest wait in each collection is the machine's part of vigil's stall
  const sentinel = await startSentinel(children);
  for (const size of plan) results.push(await measure(size, sentinel));
  await children.stop(sentinel.child);
  report(results, {
    out: OUT,
    smoke: flags.smoke,
    collectionsOnly: flags['collections-only'],
    quietCollections: QUIET_COLLECTIONS,
    turns: TURNS,
    loadConnections: LOAD_CONNECTIONS,
  });
  say(`\nwritten to ${OUT}/scale-*.json`);
});
