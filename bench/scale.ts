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
 *
 * Each process is its own: the simulators (bench/scale/estate-main.ts), vigil (`node dist/main.js`,
 * built first), the ceiling, the pushgateway, and wrk. Everything listens on 127.0.0.1 and is ended
 * by PID, also on failure. Numbers are printed as tables and written to bench/results/scale-*.json;
 * only something breaking (a process that does not start, a failed job, an error answer) fails it.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { CollectSummary } from '../src/daemon.js';
import { Children, cpuSeconds, rssBytes } from './scale/children.js';
import { answersRows, bothWays } from './scale/answers.js';
import { report, type LatencyRow, type LoadRow, type SizeResult } from './scale/tables.js';
import { endpointShares } from './scale/endpoint-shares.js';
import { setFaults, vigilConfig, type Estate, type EstateShape } from './scale/estate.js';
import { floorLine, floorTurns } from './scale/floor.js';
import { prometheusScrape } from './scale/prometheus-scrape.js';
import type { Row } from './scale/report.js';
import { runBench } from './scale/run-bench.js';
import { startCeiling } from './scale/start-ceiling.js';
import { startPushgateway, withoutRuntime } from './scale/start-pushgateway.js';
import { MILLION_SHAPE, startEstate } from './scale/start-estate.js';
import { startVigil, until, whileCollecting, type Vigil } from './scale/start-vigil.js';
import { load } from './scale/wrk.js';

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

interface Size {
  label: string;
  scale: number;
  /** Length of each wrk run. */
  seconds: number;
  /** Collection cycles of the leak check, run at this size. */
  leakCycles?: number;
  /** Upstream delay for the check that a scrape does not depend on upstream latency. */
  delayMs?: number;
  /** Leave the pushgateway out: at 40 MB it answers no scrape within a wrk run. */
  noPeer?: boolean;
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
const ms = (seconds: number) => Math.round(seconds * 1e4) / 10;
const say = (line: string) => process.stdout.write(`${line}\n`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const encodings = [
  { encoding: 'identity', gzip: false },
  { encoding: 'gzip', gzip: true },
] as const;

async function measure(size: Size): Promise<SizeResult> {
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
  const heapFirst = await vigil.heapAfterGc();

  const collections: CollectSummary[] = [];
  for (let i = 0; i < QUIET_COLLECTIONS; i++) collections.push(await vigil.collect());
  const text = (await vigil.metrics()).toString();
  const series = text.split('\n').filter((l) => l && !l.startsWith('#')).length;
  const gzipBytes = (await vigil.metrics(true)).length;
  say(`series: ${series} (snapshot ${collections.at(-1)?.series}), /metrics ${text.length} bytes, gzip ${gzipBytes} bytes`);
  const floor = () => floorTurns(children, sim, () => vigil.collect());
  const answers = await bothWays(vigil, (vary) => setFaults(estate, vary ? { vary: true } : undefined), TURNS, floor);
  for (const row of answersRows(size.label, series, answers, rssBytes(vigil.child.pid, true))) say(`  ${JSON.stringify(row)}`);
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
  const loaded = flags['collections-only'] ? { load: [], latency: [], prometheus: NO_PROMETHEUS } : await leakAndLoad(size, vigil, estate, text, memory);
  const rssPeak = rssBytes(vigil.child.pid, true);
  memory.rss_peak_mib = mib(rssPeak);
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

/** The leak check, the load on every server, the scrapes while collecting and a real Prometheus: all but the collections. */
async function leakAndLoad(size: Size, vigil: Vigil, estate: Estate, text: string, memory: Row): Promise<Pick<SizeResult, 'load' | 'latency' | 'prometheus'>> {
  if (size.leakCycles) {
    const started = performance.now();
    const cpu = cpuSeconds(vigil.child.pid);
    // RSS as it is, then the heap left by a forced GC, five times along the way: a leak climbs, a
    // working set levels off
    const trace: string[] = [];
    const step = Math.max(1, Math.round(size.leakCycles / 5));
    for (let i = 1; i <= size.leakCycles; i++) {
      await vigil.collect();
      // scrape now and then, as Prometheus would, so the served bodies are part of what must not grow
      if (i % 10 === 0) await vigil.metrics(true);
      if (i % step === 0) trace.push(`${i}:${mib(rssBytes(vigil.child.pid))}/${mib(await vigil.heapAfterGc())}`);
    }
    Object.assign(memory, {
      leak_cycles: size.leakCycles,
      leak_seconds: Math.round((performance.now() - started) / 100) / 10,
      leak_cpu_s_per_cycle: Math.round(((cpuSeconds(vigil.child.pid) - cpu) / size.leakCycles) * 1000) / 1000,
      'leak_trace cycles:rss/heap': trace.join(' '),
      rss_after_cycles_mib: mib(rssBytes(vigil.child.pid)),
      heap_after_gc_cycles_mib: mib(await vigil.heapAfterGc()),
    });
    say(`  leak check: ${size.leakCycles} cycles, RSS ${memory.rss_after_first_mib} -> ${memory.rss_after_cycles_mib} MiB (${trace.join(' ')})`);
  }

  const pushed = withoutRuntime(text);
  const bodyFile = join(scratch, 'pushed.txt');
  writeFileSync(bodyFile, pushed);
  const ceiling = await startCeiling(children, bodyFile);
  const pgw = size.noPeer ? undefined : await startPushgateway(children, pushed);

  const servers = [
    { server: 'vigil', url: `${vigil.url}/metrics`, pid: vigil.child.pid },
    { server: 'ceiling', url: ceiling.url, pid: ceiling.child.pid },
    ...(pgw ? [{ server: 'pushgateway', url: pgw.url, pid: pgw.child.pid }] : []),
  ];
  const loadRows: LoadRow[] = [];
  for (const { encoding, gzip } of encodings) {
    for (const sv of servers) {
      const r = await load(children, { url: sv.url, connections: LOAD_CONNECTIONS, seconds: size.seconds, gzip, serverPid: sv.pid });
      loadRows.push({ server: sv.server, encoding, ...r });
      say(`  load ${sv.server} ${encoding}: ${r.requests_per_second} req/s, p99 ${r.p99_ms} ms, ${r.cpu_ms_per_request} CPU ms/req`);
    }
  }
  await children.stop(ceiling.child);
  if (pgw) await children.stop(pgw.child);

  // One scraper at a time, as Prometheus scrapes: its latency idle, and while collections run.
  const scrape = (gzip: boolean) => load(children, { url: `${vigil.url}/metrics`, connections: 1, seconds: size.seconds, gzip, serverPid: vigil.child.pid });
  const latency: LatencyRow[] = [];
  const during = async (condition: string, encoding: string, gzip: boolean) => {
    const { result, collections: runs } = await whileCollecting(vigil, () => scrape(gzip));
    latency.push({
      condition,
      encoding,
      ...result,
      collections: runs.length,
      collection_wall_s: median(runs.map((c) => c.wall_seconds)),
      loop_delay_max_ms: ms(Math.max(0, ...runs.map((c) => c.event_loop_delay_max_seconds))),
    });
    say(`  scrapes ${condition} ${encoding}: p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms over ${runs.length} collections`);
  };
  for (const { encoding, gzip } of encodings) {
    latency.push({ condition: 'idle', encoding, ...(await scrape(gzip)), collections: 0 });
    await during('collecting', encoding, gzip);
  }
  if (size.delayMs) {
    await setFaults(estate, { delay_ms: size.delayMs });
    await during(`collecting, upstream +${size.delayMs} ms`, 'gzip', true);
    await setFaults(estate, undefined);
  }

  // A real Prometheus scraping (gzip) while collections run back to back: the scrape a user's server makes
  const scraped = await whileCollecting(vigil, () => prometheusScrape(`${vigil.url}/metrics`, flags.smoke ? 1 : 3));
  const prometheus = { ...scraped.result, collections: scraped.collections.length };
  say(`  prometheus: ${prometheus.scrapes} scrapes, up ${prometheus.up_min}, scrape_duration max ${prometheus.scrape_duration_max_s} s`);

  memory.rss_after_load_mib = mib(rssBytes(vigil.child.pid));
  return { load: loadRows, latency, prometheus };
}

/** What `--collections-only` leaves unmeasured: no Prometheus scraped. */
const NO_PROMETHEUS: SizeResult['prometheus'] = {
  scrapes: 0,
  up_min: 0,
  scrape_duration_max_s: 0,
  scrape_duration_last_s: 0,
  samples_scraped: 0,
  collections: 0,
};

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
  for (const size of plan) results.push(await measure(size));
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
