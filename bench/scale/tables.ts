import { loadavg } from 'node:os';
import type { CollectSummary } from '../../src/daemon.js';
import { answersRows, type AnswersMode } from './answers.js';
import type { EstateShape } from './estate.js';
import { floorEndpointRows } from './floor.js';
import type { PrometheusScrape } from './prometheus-scrape.js';
import { machine, printTable, writeResult, type Row } from './report.js';
import type { LoadResult } from './wrk.js';

/**
 * The scale benchmark's tables (`bench/scale.ts`): what each size measured, printed and written to
 * `bench/results/scale-*.json` with the machine and revision they were measured on.
 */

/** Where and how the run measured, as the tables say it. */
export interface ReportOptions {
  out: string;
  smoke: boolean;
  collectionsOnly: boolean;
  quietCollections: number;
  /** Collections each way of the answers, each followed by the floor's replay. */
  turns: number;
  loadConnections: number;
}

export interface LoadRow extends LoadResult {
  server: string;
  encoding: string;
}

export interface LatencyRow extends LoadResult {
  condition: string;
  encoding: string;
  collections: number;
  collection_wall_s?: number;
  loop_delay_max_ms?: number;
}

export interface SizeResult {
  size: string;
  shape: EstateShape;
  series: number;
  bytes: number;
  gzip_bytes: number;
  memory: Row;
  collections: CollectSummary[];
  load: LoadRow[];
  latency: LatencyRow[];
  prometheus: PrometheusScrape & { collections: number };
  rss_peak_bytes: number;
  /** Collections with the answers unchanged, then with every answer changed. */
  answers: AnswersMode[];
  /** With --shares: a collection's CPU without each endpoint in turn (endpoint-shares.ts). */
  shares: Row[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const ms = (seconds: number) => Math.round(seconds * 1e4) / 10;
const encodings = ['identity', 'gzip'] as const;

/** A collection with the answers unchanged and with every answer changed, per size (scale-answers.json). */
function reportAnswers(results: SizeResult[], o: ReportOptions): void {
  const rows = results.flatMap((r) => answersRows(r.size, r.series, r.answers, r.rss_peak_bytes));
  printTable(
    `7. a collection, answers unchanged and every answer changed (median of ${o.turns} each, CPU of all vigil's threads), ` +
      `against the floor (the same answers fetched and digested, a replay after each collection; vigil's CPU over the floor's, ` +
      `the median of the turns; goal: unchanged <= 2x, changed <= 5x)`,
    rows,
  );
  const endpoints = results.flatMap((r) => r.answers.flatMap((a) => (a.floor ? floorEndpointRows(r.size, a.mode, a.floor) : [])));
  printTable("   the floor per endpoint class: where a collection's requests and bytes go", endpoints);
  writeResult(o.out, 'scale-floor-endpoints', { machine: machine(), smoke: o.smoke }, endpoints);
  const shares = results.flatMap((r) => r.shares);
  if (shares.length) {
    printTable("   each endpoint's share of a collection's CPU, every answer changed: what leaving it out saves (median of 2 each)", shares);
    writeResult(o.out, 'scale-endpoint-shares', { machine: machine(), smoke: o.smoke }, shares);
  }
  writeResult(
    o.out,
    'scale-answers',
    {
      machine: machine(),
      smoke: o.smoke,
      load_average: loadavg()
        .map((l) => l.toFixed(1))
        .join(' '),
    },
    rows,
  );
}

const latencies = (l: LoadResult): Row => ({ 'p50 ms': l.p50_ms, 'p99 ms': l.p99_ms });

export function report(results: SizeResult[], o: ReportOptions): void {
  reportAnswers(results, o);
  if (o.collectionsOnly) return;
  const about = { machine: machine(), smoke: o.smoke };
  const find = (r: SizeResult, server: string, encoding: string) => r.load.find((l) => l.server === server && l.encoding === encoding);
  const ratio = (a?: number, b?: number) => (a && b ? Math.round((a / b) * 100) / 100 : undefined);

  const throughput: Row[] = results.flatMap((r) =>
    r.load.map((l) => ({
      size: r.size,
      server: l.server,
      encoding: l.encoding,
      'req/s': l.requests_per_second,
      ...latencies(l),
      'bytes/resp': l.bytes_per_response,
      'CPU ms/req': l.cpu_ms_per_request,
    })),
  );
  const ratios: Row[] = results.flatMap((r) =>
    encodings.map((encoding) => ({
      size: r.size,
      encoding,
      'vigil/ceiling': ratio(find(r, 'vigil', encoding)?.requests_per_second, find(r, 'ceiling', encoding)?.requests_per_second),
      'vigil/pushgateway': ratio(find(r, 'vigil', encoding)?.requests_per_second, find(r, 'pushgateway', encoding)?.requests_per_second),
    })),
  );
  printTable(`1. /metrics under load (wrk, ${o.loadConnections} connections)`, throughput);
  printTable('   throughput ratios, same run', ratios);
  writeResult(o.out, 'scale-throughput', about, [...throughput, ...ratios.map((r) => ({ ...r, server: 'ratio' }))]);

  const collection: Row[] = results.map((r) => {
    const c = r.collections;
    return {
      size: r.size,
      series: r.series,
      jobs: c[0]?.jobs,
      'wall s': median(c.map((x) => x.wall_seconds)).toFixed(3),
      'CPU s': median(c.map((x) => x.cpu_seconds)).toFixed(3),
      requests: median(c.map((x) => x.upstream_requests)),
      'loop delay max ms': ms(median(c.map((x) => x.event_loop_delay_max_seconds))),
    };
  });
  const scrapes: Row[] = results.flatMap((r) =>
    r.latency.map((l) => ({
      size: r.size,
      condition: l.condition,
      encoding: l.encoding,
      ...latencies(l),
      'max ms': l.max_ms,
      'scrapes/s': l.requests_per_second,
      collections: l.collections,
      'collection wall s': l.collection_wall_s?.toFixed(3),
      'loop delay max ms': l.loop_delay_max_ms,
    })),
  );
  printTable(`2. one full collection (median of ${o.quietCollections}, nothing else running)`, collection);
  printTable('   one scraper at a time (wrk, 1 connection): idle, and while collections run back to back', scrapes);
  writeResult(o.out, 'scale-collection', about, [...collection, ...scrapes]);

  const memory = results.map((r) => r.memory);
  printTable('3. memory (RSS from /proc; heap after a forced full GC)', memory);
  writeResult(o.out, 'scale-memory', about, memory);

  const p99 = (r: SizeResult, condition: string) => r.latency.find((l) => l.condition === condition && l.encoding === 'gzip')?.p99_ms;
  const scaling: Row[] = results.map((r, i) => {
    const v = find(r, 'vigil', 'gzip');
    const cpu = median(r.collections.map((x) => x.cpu_seconds));
    const before = results[i - 1];
    const rss = (x: SizeResult) => Number(x.memory.rss_after_first_mib) * 2 ** 20;
    return {
      size: r.size,
      series: r.series,
      bytes: r.bytes,
      'collection CPU s': cpu.toFixed(3),
      'collection CPU us/series': Math.round((cpu / r.series) * 1e6 * 10) / 10,
      'scrape CPU ms (gzip)': v?.cpu_ms_per_request,
      'scrape CPU ms (identity)': find(r, 'vigil', 'identity')?.cpu_ms_per_request,
      'RSS MiB': r.memory.rss_after_first_mib,
      'RSS B/series': Math.round(rss(r) / r.series),
      // What one more series costs, between this size and the one before (the fixed part cancels).
      'marginal RSS B/series': before ? Math.round((rss(r) - rss(before)) / (r.series - before.series)) : undefined,
      'loop delay max ms': ms(median(r.collections.map((x) => x.event_loop_delay_max_seconds))),
      'scrape p99 ms idle (gzip)': p99(r, 'idle'),
      'scrape p99 ms collecting (gzip)': p99(r, 'collecting'),
      'identity vigil/ceiling': ratio(find(r, 'vigil', 'identity')?.requests_per_second, find(r, 'ceiling', 'identity')?.requests_per_second),
    };
  });
  printTable('4. scaling', scaling);
  writeResult(o.out, 'scale-scaling', about, scaling);

  const gzip: Row[] = results.map((r) => {
    const id = find(r, 'vigil', 'identity');
    const gz = find(r, 'vigil', 'gzip');
    return {
      size: r.size,
      'identity bytes': id?.bytes_per_response,
      'gzip bytes': gz?.bytes_per_response,
      'wire ratio': ratio(gz?.bytes_per_response, id?.bytes_per_response),
      'identity CPU ms/req': id?.cpu_ms_per_request,
      'gzip CPU ms/req': gz?.cpu_ms_per_request,
      'identity req/s': id?.requests_per_second,
      'gzip req/s': gz?.requests_per_second,
    };
  });
  printTable('5. gzip (vigil, under load)', gzip);
  writeResult(o.out, 'scale-gzip', about, gzip);

  const perSeries = results.map((r) =>
    perSeriesRow(r, ratio(find(r, 'vigil', 'identity')?.requests_per_second, find(r, 'ceiling', 'identity')?.requests_per_second)),
  );
  printTable('6. per series as the estate grows (issue 26)', perSeries);
  writeResult(o.out, 'scale-per-series', about, perSeries);
}

/**
 * The figures issue 26 asks of each size: a collection's CPU (median of the quiet ones) per series,
 * RSS per series (after the first collection, and the peak of the whole run), the longest stall of
 * any collection (quiet or under load), throughput against the bare server, and a real
 * Prometheus's gzip scrapes while collections run.
 */
function perSeriesRow(r: SizeResult, identityRatio: number | undefined): Row {
  const cpu = median(r.collections.map((x) => x.cpu_seconds));
  const rssFirst = Number(r.memory.rss_after_first_mib) * 2 ** 20;
  const stalls = [...r.collections.map((c) => ms(c.event_loop_delay_max_seconds)), ...r.latency.map((l) => l.loop_delay_max_ms ?? 0)];
  return {
    size: r.size,
    series: r.series,
    'collection CPU s': cpu.toFixed(2),
    'us/series': Math.round((cpu / r.series) * 1e6 * 10) / 10,
    'RSS MiB': r.memory.rss_after_first_mib,
    'RSS B/series': Math.round(rssFirst / r.series),
    'RSS peak MiB': mib(r.rss_peak_bytes),
    'peak B/series': Math.round(r.rss_peak_bytes / r.series),
    'stall max ms': Math.max(...stalls),
    'stall median ms': ms(median(r.collections.map((x) => x.event_loop_delay_max_seconds))),
    'identity vigil/ceiling': identityRatio,
    'prometheus up min': r.prometheus.up_min,
    'prometheus scrapes': r.prometheus.scrapes,
    'prometheus scrape max s': r.prometheus.scrape_duration_max_s,
  };
}
