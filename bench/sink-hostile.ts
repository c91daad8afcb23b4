/**
 * What hostile senders cost a running vigil (issue 17): how late /metrics answers while a
 * 55k-alert notification is stored, how fast refused (401) webhooks are answered, and how large
 * /metrics grows after 2,000 distinct receivers and severities. Ratios are against the idle scrape
 * of the same run.
 *
 *   npx tsx bench/sink-hostile.ts
 *
 * vigil runs in a child process (real main.ts, SQLite in a temp dir); this process only sends.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { notification } from '../test/helpers/alertmanager.js';
import { spawnVigil } from '../test/helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-hostile-'));
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function scrapeMs(url: string): Promise<number> {
  const t = performance.now();
  await (await fetch(`${url}/metrics`)).arrayBuffer();
  return performance.now() - t;
}

/** Scrapes every 10 ms while `work` runs; the slowest scrape. */
async function worstScrapeDuring(url: string, work: () => Promise<unknown>): Promise<{ worst_ms: number; scrapes: number; work_seconds: number }> {
  let done = false;
  const lat: number[] = [];
  const loop = (async () => {
    while (!done) {
      lat.push(await scrapeMs(url));
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const t = performance.now();
  await work();
  const seconds = (performance.now() - t) / 1000;
  done = true;
  await loop;
  return { worst_ms: round(Math.max(...lat)), scrapes: lat.length, work_seconds: round(seconds, 2) };
}

const post = async (url: string, body: string, headers: Record<string, string>) => {
  const res = await fetch(`${url}/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  await res.arrayBuffer();
  return res.status;
};

let child: ChildProcess | undefined;
try {
  writeFileSync(join(dir, 'token'), 'bench-token\n');
  const config = join(dir, 'vigil.yml');
  writeFileSync(
    config,
    `alert_sink:\n  bearer_token_file: ${join(dir, 'token')}\n  body_limit: 32MiB\n  max_in_flight_size: 32MiB\n  store: { path: ${join(dir, 'alerts.db')} }\n`,
  );
  const vigil = await spawnVigil(config);
  child = vigil.child;
  const auth = { authorization: 'Bearer bench-token' };
  const idle: number[] = [];
  for (let i = 0; i < 50; i++) idle.push(await scrapeMs(vigil.url));
  const idleMedian = median(idle);

  const big = JSON.stringify(
    notification({ groupKey: 'g55k', alerts: Array.from({ length: 55_000 }, (_, i) => ({ fingerprint: `f${i}`, severity: 'warning' })) }),
  );
  const fiftyFiveK = await worstScrapeDuring(vigil.url, () => post(vigil.url, big, auth));

  for (let from = 0; from < 2000; from += 25) {
    await Promise.all(
      Array.from({ length: 25 }, (_, j) =>
        post(
          vigil.url,
          JSON.stringify(
            notification({ receiver: `rcv-${from + j}`, groupKey: `r${from + j}`, alerts: [{ fingerprint: `r${from + j}`, severity: `sev-${from + j}` }] }),
          ),
          auth,
        ),
      ),
    );
  }
  await new Promise((r) => setTimeout(r, 1500));
  const metrics = await (await fetch(`${vigil.url}/metrics`)).text();

  const refusedBody = JSON.stringify(notification({ alerts: [{ fingerprint: 'x' }] }));
  let refused = 0;
  const flood = await worstScrapeDuring(vigil.url, () =>
    Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let i = 0; i < 100; i++) if ((await post(vigil.url, refusedBody, {})) === 401) refused++;
      }),
    ),
  );

  const result = {
    bench: 'sink-hostile',
    date: new Date().toISOString(),
    node: process.versions.node,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    idle_scrape_median_ms: round(idleMedian),
    notification_55k_alerts: { body_bytes: big.length, ...fiftyFiveK, worst_scrape_vs_idle: round(fiftyFiveK.worst_ms / idleMedian) },
    after_2000_receivers: {
      metrics_bytes: metrics.length,
      series: metrics.split('\n').filter((l) => l && !l.startsWith('#')).length,
      receiver_values: new Set([...metrics.matchAll(/receiver="([^"]*)"/g)].map((m) => m[1])).size,
    },
    refused_webhooks: {
      requests: refused,
      per_second: round(refused / flood.work_seconds),
      worst_scrape_ms: flood.worst_ms,
      worst_scrape_vs_idle: round(flood.worst_ms / idleMedian),
    },
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('results/sink-hostile.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten to bench/results/sink-hostile.json\n`);
} finally {
  child?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
