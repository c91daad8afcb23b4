/**
 * How late /metrics answers while the alert sink stores a 55,000-alert notification (issue 28):
 * scrapes back to back on one kept-alive connection for as long as the notification takes, on a
 * clean store and on one holding the worst stored values (alerts whose severity, an indexed
 * column, is 4,000,000 characters: posted through the webhook if it still takes them, and written
 * into the file directly, as an older vigil would have left them).
 *
 *   npm run build && node --import tsx bench/sink-scrape-during-write.ts [--old=/path/to/other/checkout] [--every-ms=10]
 *
 * vigil runs built (`dist/main.js`) in a child process on 127.0.0.1; `--old` names another checkout,
 * built, to run the same scenarios on it back to back, so the two can be compared within one run.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { notification } from '../test/helpers/alertmanager.js';
import { spawnVigil, type VigilProcess } from '../test/helpers/process.js';

const POISON = 4_000_000;
const ALERTS = 55_000;
/**
 * Pause between two scrapes, in ms (`--every-ms=0`: back to back). The default, 100 scrapes a
 * second, is far above any Prometheus; back to back, on a machine of two cores, the scrapes and
 * this process take both and starve the store's thread (it yields to the main thread by design).
 */
const EVERY_MS = Number(process.argv.find((a) => a.startsWith('--every-ms='))?.slice('--every-ms='.length) ?? 10);
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;
const stats = (xs: number[]) => ({ scrapes: xs.length, p50_ms: round(pct(xs, 50)), p99_ms: round(pct(xs, 99)), max_ms: round(Math.max(...xs)) });

/** Built vigil in `root`, on a free loopback port; resolves once its sink is ready. */
const startVigil = (root: string, config: string): Promise<VigilProcess> => spawnVigil(config, { timeoutMs: 60_000, built: { root } });

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

const post = async (url: string, body: string) => {
  const res = await fetch(`${url}/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  return res.status;
};

async function scrapeMs(url: string): Promise<number> {
  const t = performance.now();
  await (await fetch(`${url}/metrics`)).arrayBuffer();
  return performance.now() - t;
}

/** Scrapes back to back while `work` runs. */
async function scrapesDuring(url: string, work: () => Promise<number>) {
  let done = false;
  const lat: number[] = [];
  let failed = 0;
  const loop = (async () => {
    while (!done) {
      const t = performance.now();
      // A scrape the server dropped (its timeouts) counts as failed, its time as far as it got.
      lat.push(await scrapeMs(url).catch(() => (failed++, performance.now() - t)));
      if (EVERY_MS) await new Promise((r) => setTimeout(r, EVERY_MS));
    }
  })();
  const t = performance.now();
  const status = await work().catch((e: Error) => `failed: ${e.message}`);
  const seconds = (performance.now() - t) / 1000;
  done = true;
  await loop;
  return { status, notification_seconds: round(seconds, 2), during: { ...stats(lat), failed } };
}

/** Alerts with a 4,000,000-character severity written into the file directly (what no door can refuse any more). */
function poisonFile(path: string): void {
  const db = new Database(path);
  const now = Date.now();
  const insert = db.prepare(
    `INSERT INTO alerts (fingerprint, alertname, severity, state, labels, annotations, generator_url, receiver, starts_at, ends_at,
       first_seen_at, last_seen_at, last_firing_at, notifications) VALUES (?, 'Poison', ?, 'firing', ?, '{}', '', 'web.hook', ?, NULL, ?, ?, ?, 1)`,
  );
  const count = db.prepare(
    `INSERT INTO alert_counts (state, severity, count) VALUES ('firing', ?, 1) ON CONFLICT (state, severity) DO UPDATE SET count = count + 1`,
  );
  db.transaction(() => {
    for (let i = 0; i < 3; i++) {
      const severity = `${'s'.repeat(POISON)}${i}`;
      insert.run(`poison-direct-${i}`, severity, JSON.stringify({ alertname: 'Poison', severity }), now, now, now, now);
      count.run(severity);
    }
  })();
  db.close();
}

async function scenario(root: string, poisoned: boolean, big: string) {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-scrape-write-'));
  const config = join(dir, 'vigil.yml');
  const path = join(dir, 'alerts.db');
  writeFileSync(config, `alert_sink:\n  body_limit: 64MiB\n  max_in_flight_size: 64MiB\n  store: { path: ${path} }\n`);
  let v = await startVigil(root, config);
  try {
    let door: number | undefined;
    if (poisoned) {
      door = await post(v.url, JSON.stringify(notification({ groupKey: 'poison', alerts: [{ fingerprint: 'poison', severity: 'p'.repeat(POISON) }] })));
      await stop(v.child);
      poisonFile(path);
      v = await startVigil(root, config);
    }
    const idle: number[] = [];
    for (let i = 0; i < 100; i++) idle.push(await scrapeMs(v.url));
    const during = await scrapesDuring(v.url, () => post(v.url, big));
    return { store: poisoned ? 'poisoned' : 'clean', ...(door === undefined ? {} : { poisoned_post_status: door }), idle: stats(idle), ...during };
  } finally {
    await stop(v.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const old = process.argv.find((a) => a.startsWith('--old='))?.slice('--old='.length);
const builds: Array<[string, string]> = [['this checkout', here], ...(old ? [['--old', resolve(old)] as [string, string]] : [])];
const big = JSON.stringify(
  notification({ groupKey: 'g55k', alerts: Array.from({ length: ALERTS }, (_, i) => ({ fingerprint: `f${i}`, severity: i % 2 ? 'warning' : 'critical' })) }),
);
const runs = [];
for (const poisoned of [false, true]) {
  for (const [name, root] of builds) {
    runs.push({ build: name, root, ...(await scenario(root, poisoned, big)) });
    process.stderr.write(`${JSON.stringify(runs.at(-1))}\n`);
  }
}
const result = {
  bench: 'sink-scrape-during-write',
  date: new Date().toISOString(),
  node: process.versions.node,
  cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
  notification: { alerts: ALERTS, body_bytes: big.length },
  scrape_every_ms: EVERY_MS,
  runs,
};
mkdirSync(new URL('results/', import.meta.url), { recursive: true });
writeFileSync(new URL('results/sink-scrape-during-write.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten to bench/results/sink-scrape-during-write.json\n`);
