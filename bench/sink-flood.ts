/**
 * The drop-after-send flood against a running vigil's alert sink, on SQLite and on PostgreSQL: 16
 * senders each post a ~1.2 MB notification of 5,000 alerts and close the socket 300 ms later, over
 * and over (as Alertmanager does when the sink answers slower than its timeout, and then sends
 * again). Measures the process's peak RSS (sampled every 50 ms from /proc), what was stored, and how
 * long a read of the history (`GET /api/v1/alerts?limit=1`) and a scrape take meanwhile. The
 * shipped StatefulSet limits vigil to 512 MiB; before the intake budget this flood took it past
 * 3.6 GiB in about a minute.
 *
 *   npm run build && npx tsx bench/sink-flood.ts [seconds per store, default 30] [another built tree, e.g. an older checkout]
 *
 * vigil runs from dist/ in a child process; PostgreSQL is a throwaway server (test/helpers/postgres.ts).
 * Given another built tree, the same flood runs against it too ("before"), stopped once its RSS
 * passes 1.5 GiB so that it cannot take the machine with it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { notification } from '../test/helpers/alertmanager.js';
import { postAndLeave } from '../test/helpers/leaving-sender.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { spawnVigil } from '../test/helpers/process.js';

const SENDERS = 16;
const ALERTS = 5000;
const CLOSE_AFTER_MS = 300;
const seconds = Number(process.argv[2] ?? 30);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BEFORE = process.argv[3];
const CEILING = 1536 * 2 ** 20;
const MiB = 2 ** 20;
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? NaN;

/** A distinct ~1.2 MB notification of 5,000 alerts. */
function body(key: string): Buffer {
  const alerts = Array.from({ length: ALERTS }, (_, i) => ({ fingerprint: `${key}-${i}`, severity: 'warning' }));
  return Buffer.from(JSON.stringify(notification({ groupKey: key, alerts })));
}

/** After the flood: 4 senders that wait for their answers, for 10 s; the sink must store again. */
async function senderWaits(url: string): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  const end = Date.now() + 10_000;
  await Promise.all(
    Array.from({ length: 4 }, async (_, s) => {
      for (let i = 0; Date.now() < end; i++) {
        const res = await fetch(`${url}/webhook/alertmanager`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body(`wait-${s}-${i}`),
        });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

async function timed(url: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return performance.now() - t;
}

/** Runs the flood for `seconds` against a vigil with this sink config; its figures. */
async function flood(name: string, root: string, sinkYaml: (dir: string) => string) {
  const dir = mkdtempSync(join(tmpdir(), `vigil-bench-flood-${name}-`));
  const config = join(dir, 'vigil.yml');
  writeFileSync(config, `alert_sink:\n${sinkYaml(dir)}`);
  const vigil = await spawnVigil(config, { built: { root } });
  const pid = vigil.child.pid as number;
  const idleReads: number[] = [];
  for (let i = 0; i < 10; i++) idleReads.push(await timed(`${vigil.url}/api/v1/alerts?limit=1`));
  const startRss = rssBytes(pid);
  let peak = startRss;
  let died: string | undefined;
  let ceilingAfter: number | undefined;
  const started = performance.now();
  const sampler = setInterval(() => {
    try {
      const rss = rssBytes(pid);
      if (Number.isFinite(rss)) peak = Math.max(peak, rss);
      if (peak > CEILING && !died) {
        ceilingAfter = (performance.now() - started) / 1000;
        died ??= `stopped by the bench past ${CEILING / MiB} MiB`;
        vigil.child.kill('SIGKILL');
      }
    } catch {
      died ??= `exited (${vigil.child.exitCode ?? vigil.child.signalCode})`;
    }
  }, 50);
  const end = Date.now() + seconds * 1000;
  let sent = 0;
  const senders = Array.from({ length: SENDERS }, async (_, s) => {
    for (let i = 0; Date.now() < end && !died; i++) {
      await postAndLeave(vigil.url, body(`flood-${s}-${i}`), CLOSE_AFTER_MS);
      sent++;
    }
  });
  const reads: number[] = [];
  const scrapes: number[] = [];
  const probes = (async () => {
    while (Date.now() < end && !died) {
      try {
        reads.push(await timed(`${vigil.url}/api/v1/alerts?limit=1`));
        scrapes.push(await timed(`${vigil.url}/metrics`));
      } catch {
        // Answered nothing: the process died (or was stopped at the ceiling); the sampler says which.
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  await Promise.all([...senders, probes]);
  await new Promise((r) => setTimeout(r, 2000));
  const closedLoop = died ? null : await senderWaits(vigil.url);
  clearInterval(sampler);
  // The sink renders its series at most once a second.
  await new Promise((r) => setTimeout(r, 1500));
  const metrics = died ? '' : await (await fetch(`${vigil.url}/metrics`)).text();
  const rejected = Object.fromEntries([...metrics.matchAll(/^vigil_alertsink_rejected_total\{reason="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  const stored = [...metrics.matchAll(/^vigil_alertsink_notifications_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  await vigil.stop();
  rmSync(dir, { recursive: true, force: true });
  return {
    store: name,
    died: died ?? null,
    sent,
    stored: died ? null : stored,
    seconds_to_ceiling: ceilingAfter === undefined ? null : round(ceilingAfter),
    closed_loop_after: closedLoop,
    rejected,
    rss_start_mib: round(startRss / MiB),
    rss_peak_mib: round(peak / MiB),
    read_idle_p50_ms: round(quantile(idleReads, 0.5)),
    read_p50_ms: round(quantile(reads, 0.5)),
    read_max_ms: round(Math.max(...reads)),
    reads: reads.length,
    scrape_max_ms: round(Math.max(...scrapes)),
  };
}

const pg = await startPostgres();
try {
  const sqlite = (dir: string) => `  store: { path: ${join(dir, 'alerts.db')} }\n`;
  const postgres = () => `  store:\n    postgres: { url: "${pg.url}", password_file: ${pg.passwordFile}, tls: { mode: disable } }\n`;
  const runs = [await flood('sqlite', ROOT, sqlite), await flood('postgres', ROOT, postgres)];
  if (BEFORE) {
    await pg.admin('DROP SCHEMA vigil CASCADE; CREATE SCHEMA vigil AUTHORIZATION vigil');
    runs.push({ ...(await flood('sqlite', BEFORE, sqlite)), store: 'sqlite, before' });
    runs.push({ ...(await flood('postgres', BEFORE, postgres)), store: 'postgres, before' });
  }
  const result = {
    bench: 'sink-flood',
    date: new Date().toISOString(),
    node: process.versions.node,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    senders: SENDERS,
    alerts_per_notification: ALERTS,
    body_bytes: body('flood-0-0').length,
    close_after_ms: CLOSE_AFTER_MS,
    seconds,
    memory_limit_mib: 512,
    runs,
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('results/sink-flood.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten to bench/results/sink-flood.json\n`);
} finally {
  await pg.destroy();
}
