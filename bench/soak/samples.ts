import { readdirSync, statSync } from 'node:fs';
import { rssBytes } from '../scale/children.js';

/** One look at vigil, every few seconds of the soak. */
export type Sample = {
  /** Seconds since the load started. */
  t_s: number;
  /** VmRSS from /proc/PID/status. */
  rss_mib: number;
  /** Entries of /proc/PID/fd. */
  fds: number;
  /** The rest from vigil's own /metrics (undefined when the scrape failed). */
  heap_used_mib?: number;
  external_mib?: number;
  active_handles?: number;
  /** Job runs done and scheduled runs skipped, summed over every collector and target. */
  runs?: number;
  skipped?: number;
  /** Size of the sink's SQLite file and its write-ahead log. */
  store_mib: number;
  failures?: number;
  scrape_ms?: number;
};

const MIB = 2 ** 20;
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Sums every series of the families named (name followed by `{` or a space), from exposition text. */
export function sumFamilies(text: string, names: readonly string[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (!name || !names.includes(name)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    sums.set(name, (sums.get(name) ?? 0) + value);
  }
  return sums;
}

const FAMILIES = [
  'nodejs_heap_size_used_bytes',
  'nodejs_external_memory_bytes',
  'nodejs_active_handles',
  'vigil_collector_runs_total',
  'vigil_collector_skipped_runs_total',
  'vigil_collector_failures_total',
];

const fileMib = (paths: readonly string[]) => round(paths.reduce((n, p) => n + (statSync(p, { throwIfNoEntry: false })?.size ?? 0), 0) / MIB);

/** Samples vigil (`pid`, serving `url`) now; `store` is the sink's SQLite file. */
export async function sample(pid: number, url: string, store: string, t0: number): Promise<Sample> {
  const s: Sample = {
    t_s: round((performance.now() - t0) / 1000),
    rss_mib: round(rssBytes(pid) / MIB),
    fds: readdirSync(`/proc/${pid}/fd`).length,
    store_mib: fileMib([store, `${store}-wal`]),
  };
  const started = performance.now();
  try {
    // Scraped as Prometheus would (gzip), every sample: part of the load, and the cheapest heap figure.
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
    s.scrape_ms = round(performance.now() - started);
    const m = sumFamilies(text, FAMILIES);
    const mib = (name: string) => (m.has(name) ? round((m.get(name) ?? 0) / MIB) : undefined);
    Object.assign(s, {
      heap_used_mib: mib('nodejs_heap_size_used_bytes'),
      external_mib: mib('nodejs_external_memory_bytes'),
      active_handles: m.get('nodejs_active_handles'),
      runs: m.get('vigil_collector_runs_total'),
      skipped: m.get('vigil_collector_skipped_runs_total'),
      failures: m.get('vigil_collector_failures_total') ?? 0,
    });
  } catch {
    // a missed scrape leaves the /metrics fields out of this sample; /proc still counts
  }
  return s;
}

/** A least-squares line through (t, y), its slope per hour and that slope's standard error. */
export interface Trend {
  samples: number;
  min: number;
  max: number;
  first: number;
  last: number;
  slope_per_hour: number;
  slope_stderr_per_hour: number;
}

export function trend(points: ReadonlyArray<readonly [number, number]>): Trend | undefined {
  const n = points.length;
  if (n < 3) return undefined;
  const ys = points.map(([, y]) => y);
  const mt = points.reduce((a, [t]) => a + t, 0) / n;
  const my = ys.reduce((a, y) => a + y, 0) / n;
  const stt = points.reduce((a, [t]) => a + (t - mt) ** 2, 0);
  const sty = points.reduce((a, [t, y]) => a + (t - mt) * (y - my), 0);
  const slope = sty / stt;
  const residuals = points.reduce((a, [t, y]) => a + (y - my - slope * (t - mt)) ** 2, 0);
  const stderr = Math.sqrt(residuals / (n - 2) / stt);
  const perHour = 3600;
  return {
    samples: n,
    min: Math.min(...ys),
    max: Math.max(...ys),
    first: ys[0] ?? NaN,
    last: ys.at(-1) ?? NaN,
    slope_per_hour: round(slope * perHour, 2),
    slope_stderr_per_hour: round(stderr * perHour, 2),
  };
}

/** The trend of one field over the samples taken at or after `fromS` seconds (the warm-up left out). */
export function trendOf(samples: readonly Sample[], field: keyof Sample, fromS: number): Trend | undefined {
  const points = samples.flatMap((s): Array<[number, number]> => {
    const y = s[field];
    return s.t_s >= fromS && y !== undefined ? [[s.t_s, y]] : [];
  });
  return trend(points);
}
