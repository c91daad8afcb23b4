/**
 * How long one page of GET /api/v1/alerts holds the event loop with 330,000 alerts stored (the size
 * at which an unbounded list took 15 s and 1.1 GiB): the first page and the slowest page of a walk
 * through all of them by cursor, unfiltered and for one state. The SQLite store in a temp dir.
 *
 *   npx tsx bench/sink-alert-pages.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePayload } from '../src/sink/payload-schema.js';
import { SqliteAlertStore } from '../src/sink/store/sqlite-store.js';
import { notificationKey, type AlertCursor, type AlertFilter } from '../src/sink/store/alert-store.js';
import { notification } from '../test/helpers/alertmanager.js';

const ALERTS = 330_000;
const PER_NOTIFICATION = 10_000;
const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-pages-'));
const store = new SqliteAlertStore({ path: join(dir, 'alerts.db') });
const round = (n: number) => Math.round(n * 10) / 10;

try {
  const t0 = Date.UTC(2026, 10, 1);
  for (let b = 0; b < ALERTS / PER_NOTIFICATION; b++) {
    const alerts = Array.from({ length: PER_NOTIFICATION }, (_, i) => ({
      fingerprint: `f${b}-${i}`,
      startsAt: new Date(t0 + (b * PER_NOTIFICATION + i) * 1000).toISOString().replace('.000', ''),
      status: i % 3 ? ('firing' as const) : ('resolved' as const),
    }));
    const body = JSON.stringify(notification({ groupKey: `g${b}`, alerts }));
    const r = parsePayload(body);
    if (!r.ok) throw new Error(r.error);
    await store.record({ key: notificationKey(r.payload), receivedAt: Date.now(), payload: r.payload, body });
  }
  const walk = async (filter: Omit<AlertFilter, 'after'>) => {
    let after: AlertCursor | undefined;
    let first = NaN;
    let slowest = 0;
    let pages = 0;
    let alerts = 0;
    for (;;) {
      const t = performance.now();
      const page = await store.alerts({ ...filter, after });
      const ms = performance.now() - t;
      if (pages === 0) first = ms;
      slowest = Math.max(slowest, ms);
      pages++;
      alerts += page.alerts.length;
      if (!page.next) break;
      after = page.next;
    }
    return { ...filter, alerts, pages, first_page_ms: round(first), slowest_page_ms: round(slowest) };
  };
  const result = {
    bench: 'sink-alert-pages',
    date: new Date().toISOString(),
    node: process.versions.node,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    stored_alerts: ALERTS,
    cases: [
      await walk({ limit: 1000, maxBytes: 16 << 20 }),
      await walk({ limit: 1000, state: 'firing', maxBytes: 16 << 20 }),
      await walk({ limit: 100, state: 'resolved' }),
    ],
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('results/sink-alert-pages.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten to bench/results/sink-alert-pages.json\n`);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
