import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuSeconds, rssBytes, type Children } from './children.js';
import { setFaults, type Estate } from './estate.js';
import type { PhasePeaks } from './phase-peaks.js';
import { prometheusScrape } from './prometheus-scrape.js';
import type { Row } from './report.js';
import { startCeiling } from './start-ceiling.js';
import { startPushgateway, withoutRuntime } from './start-pushgateway.js';
import { whileCollecting, type Vigil } from './start-vigil.js';
import type { LatencyRow, LoadRow, SizeResult } from './tables.js';
import { load } from './wrk.js';

/** What of a size of the plan (`bench/scale.ts`) the phases after the collections need. */
export interface LoadPlan {
  /** Length of each wrk run. */
  seconds: number;
  /** Collection cycles of the leak check, run at this size. */
  leakCycles?: number;
  /** Upstream delay for the check that a scrape does not depend on upstream latency. */
  delayMs?: number;
  /** Leave the pushgateway out: at 40 MB it answers no scrape within a wrk run. */
  noPeer?: boolean;
}

/** Where and how: the bench's children and scratch directory, wrk's connections, the smoke run's shorter Prometheus. */
export interface LoadSetting {
  children: Children;
  scratch: string;
  connections: number;
  smoke: boolean;
}

/** What `--collections-only` leaves unmeasured: no Prometheus scraped. */
export const NO_PROMETHEUS: SizeResult['prometheus'] = {
  scrapes: 0,
  up_min: 0,
  scrape_duration_max_s: 0,
  scrape_duration_last_s: 0,
  samples_scraped: 0,
  collections: 0,
};

const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const ms = (seconds: number) => Math.round(seconds * 1e4) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const say = (line: string) => process.stdout.write(`${line}\n`);
const encodings = [
  { encoding: 'identity', gzip: false },
  { encoding: 'gzip', gzip: true },
] as const;

/**
 * The leak check, the load on every server, the scrapes while collecting and a real Prometheus: all
 * but the collections. Each ends a phase of `peaks`, so the run's peak RSS is told by phase.
 */
export async function leakAndLoad(
  setting: LoadSetting,
  size: LoadPlan,
  vigil: Vigil,
  estate: Estate,
  text: string,
  memory: Row,
  peaks: PhasePeaks,
): Promise<Pick<SizeResult, 'load' | 'latency' | 'prometheus'>> {
  const { children, scratch } = setting;
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
    peaks.mark('leak');
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
      const r = await load(children, { url: sv.url, connections: setting.connections, seconds: size.seconds, gzip, serverPid: sv.pid });
      loadRows.push({ server: sv.server, encoding, ...r });
      say(`  load ${sv.server} ${encoding}: ${r.requests_per_second} req/s, p99 ${r.p99_ms} ms, ${r.cpu_ms_per_request} CPU ms/req`);
    }
  }
  await children.stop(ceiling.child);
  if (pgw) await children.stop(pgw.child);
  peaks.mark('load');

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
  peaks.mark('scrapes');

  // A real Prometheus scraping (gzip) while collections run back to back: the scrape a user's server makes
  const scraped = await whileCollecting(vigil, () => prometheusScrape(`${vigil.url}/metrics`, setting.smoke ? 1 : 3));
  const prometheus = { ...scraped.result, collections: scraped.collections.length };
  say(`  prometheus: ${prometheus.scrapes} scrapes, up ${prometheus.up_min}, scrape_duration max ${prometheus.scrape_duration_max_s} s`);

  peaks.mark('prometheus');
  memory.rss_after_load_mib = mib(rssBytes(vigil.child.pid));
  return { load: loadRows, latency, prometheus };
}
