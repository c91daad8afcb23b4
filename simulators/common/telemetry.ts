import type http from 'node:http';
import { sendJson } from './http.js';

/**
 * The telemetry both simulated upstreams serve, as hashicorp/go-metrics renders it: a family is
 * named by its dotted key (`vault.core.unsealed`), and its Prometheus sink writes the key with dots
 * (and dashes) turned to underscores, `# HELP` equal to the name, counters as counters with no
 * `_total` (exposition format 0.0.4 adds no suffix), and timers as summaries in milliseconds with
 * the quantiles 0.5, 0.9 and 0.99 over a sliding window of ten seconds (go-metrics' prometheus.go).
 * Without `format=prometheus` the servers answer the in-memory sink's JSON (`DisplayMetrics`).
 */
export type Labels = Record<string, string>;

export type Family =
  | { name: string; type: 'gauge' | 'counter'; samples: Array<{ labels: Labels; value: number }> }
  | { name: string; type: 'summary'; samples: Array<{ labels: Labels; timer: Timer }> };

/** What a summary renders: its quantiles (NaN with no sample in the window) and its running sum and count. */
export interface TimerView {
  quantiles: Record<'0.5' | '0.9' | '0.99', number>;
  sum: number;
  count: number;
}

export interface Timer {
  view(now?: number): TimerView;
}

const WINDOW_MS = 10_000;
const WINDOW_MAX = 1000;
const QUANTILES = ['0.5', '0.9', '0.99'] as const;

/** Timings observed one by one (requests as they are answered): quantiles over the last ten seconds. */
export class SampledTimer implements Timer {
  private window: Array<{ at: number; ms: number }> = [];
  private sum = 0;
  private count = 0;

  observe(ms: number, now = Date.now()): void {
    this.window.push({ at: now, ms });
    if (this.window.length > WINDOW_MAX) this.window.shift();
    this.sum += ms;
    this.count += 1;
  }

  view(now = Date.now()): TimerView {
    this.window = this.window.filter((s) => s.at > now - WINDOW_MS);
    const sorted = this.window.map((s) => s.ms).sort((a, b) => a - b);
    const at = (q: number) => (sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) : NaN);
    return { quantiles: { '0.5': at(0.5), '0.9': at(0.9), '0.99': at(0.99) }, sum: this.sum, count: this.count };
  }
}

/**
 * An operation a server runs once a second at a latency a fault sets (a WAL flush, a plan's wait for
 * its index): every quantile is that latency, and the sum and count grow with the seconds passed.
 */
export class SteadyTimer implements Timer {
  private sum = 0;
  private count = 0;
  private last: number;

  constructor(
    private ms: number,
    now = Date.now(),
  ) {
    this.last = now;
  }

  get latencyMs(): number {
    return this.ms;
  }

  /** A new latency from now on; the seconds before it keep the old one. */
  set(ms: number, now = Date.now()): void {
    this.advance(now);
    this.ms = ms;
  }

  view(now = Date.now()): TimerView {
    this.advance(now);
    return { quantiles: { '0.5': this.ms, '0.9': this.ms, '0.99': this.ms }, sum: this.sum, count: this.count };
  }

  private advance(now: number): void {
    const runs = Math.floor((now - this.last) / 1000);
    if (runs <= 0) return;
    this.count += runs;
    this.sum += runs * this.ms;
    this.last += runs * 1000;
  }
}

/** The Prometheus name of a go-metrics key: `vault.wal.flushReady` → `vault_wal_flushready`, as real scrapes show it. */
export const prometheusName = (key: string): string => key.replace(/[.-]/g, '_').toLowerCase();

const escape = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  if (extra) pairs.push(extra);
  return pairs.length ? `{${pairs.map(([k, v]) => `${k}="${escape(v)}"`).join(',')}}` : '';
}

const num = (v: number): string => (Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v));

/** Exposition format 0.0.4, families in name order as the Prometheus client writes them. */
export function prometheusText(families: readonly Family[], now = Date.now()): string {
  const lines: string[] = [];
  for (const f of [...families].sort((a, b) => prometheusName(a.name).localeCompare(prometheusName(b.name)))) {
    if (f.samples.length === 0) continue;
    const name = prometheusName(f.name);
    lines.push(`# HELP ${name} ${name}`, `# TYPE ${name} ${f.type}`);
    if (f.type !== 'summary') {
      for (const s of f.samples) lines.push(`${name}${labelText(s.labels)} ${num(s.value)}`);
      continue;
    }
    for (const s of f.samples) {
      const v = s.timer.view(now);
      for (const q of QUANTILES) lines.push(`${name}${labelText(s.labels, ['quantile', q])} ${num(v.quantiles[q])}`);
      lines.push(`${name}_sum${labelText(s.labels)} ${num(v.sum)}`, `${name}_count${labelText(s.labels)} ${v.count}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The in-memory sink's JSON (`DisplayMetrics`): gauges, counters and samples under their dotted names. */
export function inmemJson(families: readonly Family[], now = new Date()): Record<string, unknown> {
  const gauges: unknown[] = [];
  const counters: unknown[] = [];
  const samples: unknown[] = [];
  for (const f of families) {
    if (f.type === 'gauge') for (const s of f.samples) gauges.push({ Name: f.name, Value: s.value, Labels: s.labels });
    if (f.type === 'counter') for (const s of f.samples) counters.push(aggregate(f.name, s.labels, s.value, s.value));
    if (f.type === 'summary')
      for (const s of f.samples) {
        const v = s.timer.view(now.getTime());
        samples.push(aggregate(f.name, s.labels, v.count, v.sum));
      }
  }
  return {
    Timestamp: now
      .toISOString()
      .replace(/\.\d+Z$/, ' +0000 UTC')
      .replace('T', ' '),
    Gauges: gauges,
    Points: [],
    Counters: counters,
    Samples: samples,
  };
}

function aggregate(name: string, labels: Labels, count: number, sum: number): Record<string, unknown> {
  const mean = count ? sum / count : 0;
  return { Name: name, Count: count, Rate: sum / 10, Sum: sum, Min: mean, Max: mean, Mean: mean, Stddev: 0, Labels: labels };
}

/** The content type of the Prometheus client's text format, as both servers send it. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Answers the telemetry in the format asked for: `prometheus`, or the JSON form. */
export function sendTelemetry(res: http.ServerResponse, prometheus: boolean, families: readonly Family[]): void {
  if (!prometheus) return sendJson(res, 200, inmemJson(families));
  const text = prometheusText(families);
  res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
