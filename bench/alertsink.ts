/**
 * Posts Alertmanager notifications of 1, 10 and 100 alerts from several concurrent clients to
 * vigil's webhook sink on each store (real vigil; every 200 is a durable commit): SQLite in a temp
 * dir, and a real PostgreSQL 15 started for the run (fsync on, synchronous_commit on); and the same
 * load to a bare Node http server that reads the body and answers 200 without storing anything:
 * the ceiling of this machine's loopback HTTP. Reports notifications/s and p50/p99 latency of each,
 * and their ratios to the ceiling, from one run.
 *
 *   npx tsx bench/alertsink.ts
 *
 * Both servers run in child processes; this process only generates load. Each notification is
 * distinct (its own group and alerts), so each one is a stored insert, never a duplicate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { notification } from '../test/helpers/alertmanager.js';
import { startPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import { spawnVigil } from '../test/helpers/process.js';

const CLIENTS = 8;
const SIZES = [1, 10, 100] as const;
/** Per case and server: whichever comes first. */
const MAX_REQUESTS = { 1: 3000, 10: 2000, 100: 600 } as const;
const MAX_SECONDS = 10;
const WARMUP = 200;

interface Measured {
  notifications: number;
  seconds: number;
  per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
}

const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-sink-'));
const children: ChildProcess[] = [];

const BARE = `require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"status":"ok"}'); });
}).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });`;

/** The ceiling: a bare Node http server in a child process; resolves with its URL. */
function startBare(): Promise<string> {
  const child = spawn(process.execPath, ['-e', BARE], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const url = /listening on (\S+)/.exec(line)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
  });
}

let sequence = 0;
function body(alerts: number): string {
  const n = sequence++;
  return JSON.stringify(
    notification({
      groupKey: `{}:{bench="${n}"}`,
      alerts: Array.from({ length: alerts }, (_, i) => ({
        fingerprint: `${n.toString(16)}-${i.toString(16)}`,
        alertname: 'BenchAlert',
        severity: i % 2 ? 'warning' : 'critical',
        labels: { instance: `host-${i}.bench.example:9100`, job: 'node' },
      })),
    }),
  );
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

async function load(url: string, alerts: number, total: number): Promise<Measured> {
  const pool = new Pool(url, { connections: CLIENTS, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const post = async (record: boolean) => {
    const payload = body(alerts);
    const t0 = performance.now();
    const res = await pool.request({ path: '/webhook/alertmanager', method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
    await res.body.dump();
    if (res.statusCode !== 200) errors++;
    if (record) latencies.push(performance.now() - t0);
  };
  for (let i = 0; i < WARMUP; i++) await post(false);
  const started = performance.now();
  // From after the warm-up: a slow store must still get its timed run.
  const deadline = started + MAX_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (sent < total && performance.now() < deadline) {
        sent++;
        await post(true);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    notifications: latencies.length,
    seconds: round(seconds, 3),
    per_second: round(latencies.length / seconds, 1),
    p50_ms: round(quantile(latencies, 0.5)),
    p99_ms: round(quantile(latencies, 0.99)),
    errors,
  };
}

let postgres: TestPostgres | undefined;
async function vigilOn(name: string, store: string): Promise<string> {
  const config = join(dir, `${name}.yml`);
  writeFileSync(config, `alert_sink:\n  store: ${store}\n`);
  const v = await spawnVigil(config, 60_000);
  children.push(v.child);
  return v.url;
}

try {
  const sqliteUrl = await vigilOn('sqlite', `{ path: ${join(dir, 'alerts.db')} }`);
  postgres = await startPostgres();
  const postgresUrl = await vigilOn('postgres', `{ postgres: { url: "${postgres.url}", password_file: ${postgres.passwordFile}, tls: { mode: disable } } }`);
  const bareUrl = await startBare();

  const cases = [];
  for (const alerts of SIZES) {
    const sqlite = await load(sqliteUrl, alerts, MAX_REQUESTS[alerts]);
    const pg = await load(postgresUrl, alerts, MAX_REQUESTS[alerts]);
    const bare = await load(bareUrl, alerts, MAX_REQUESTS[alerts]);
    cases.push({
      alerts_per_notification: alerts,
      sqlite,
      postgres: pg,
      bare,
      sqlite_to_bare: round(sqlite.per_second / bare.per_second, 3),
      postgres_to_bare: round(pg.per_second / bare.per_second, 3),
      postgres_to_sqlite: round(pg.per_second / sqlite.per_second, 3),
    });
  }
  const result = {
    bench: 'alertsink',
    date: new Date().toISOString(),
    node: process.versions.node,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    clients: CLIENTS,
    stores: {
      sqlite: 'SQLite, WAL, synchronous=FULL, in the OS temp dir',
      postgres: 'PostgreSQL 15 on loopback, same machine, default durability (fsync, synchronous_commit on), pool_size 10',
    },
    max_seconds_per_run: MAX_SECONDS,
    cases,
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('results/alertsink.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  const cell = (m: Measured) => `${m.per_second} | ${m.p99_ms}`;
  const rows = cases.map(
    (c) =>
      `| ${c.alerts_per_notification} | ${cell(c.sqlite)} | ${cell(c.postgres)} | ${cell(c.bare)} | ${c.sqlite_to_bare} | ${c.postgres_to_bare} | ${c.sqlite.errors + c.postgres.errors + c.bare.errors} |`,
  );
  process.stdout.write(
    [
      `${CLIENTS} clients, loopback, ${result.cpus}, node ${result.node}`,
      '| alerts/notification | SQLite notif/s | SQLite p99 ms | PostgreSQL notif/s | PostgreSQL p99 ms | no-op notif/s | no-op p99 ms | SQLite/no-op | PostgreSQL/no-op | errors |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      'written to bench/results/alertsink.json',
      '',
    ].join('\n'),
  );
} finally {
  for (const c of children) c.kill('SIGTERM');
  await postgres?.destroy();
  rmSync(dir, { recursive: true, force: true });
}
