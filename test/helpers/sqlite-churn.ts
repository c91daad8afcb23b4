import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePayload } from '../../src/sink/payload-schema.js';
import { notificationKey, type IncomingNotification } from '../../src/sink/store/alert-store.js';
import { SqliteAlertStore } from '../../src/sink/store/sqlite-store.js';
import { notification } from './alertmanager.js';

/**
 * A script (node --import tsx test/helpers/sqlite-churn.ts), not a test: what the alert sink does
 * with its SQLite store over a long run (writes, every kind of read, a store closed and opened
 * again, failed attempts to open a corrupt file), interleaved with allocation in compiled
 * JavaScript, whose garbage collections are the ones that aborted vigil on Node.js 24 when they
 * freed a better-sqlite3 object (see src/sink/store/sqlite-kept.ts). Exits 0 when it survives.
 */
const dir = mkdtempSync(join(tmpdir(), 'vigil-sqlite-churn-'));
const incoming = (i: number): IncomingNotification => {
  const body = JSON.stringify(notification({ groupKey: `g${i}`, alerts: [{ fingerprint: `f${i % 50}`, status: i % 3 ? 'firing' : 'resolved' }] }));
  const r = parsePayload(body);
  if (!r.ok) throw new Error(r.error);
  return { key: notificationKey(r.payload), receivedAt: 1_700_000_000_000 + i, payload: r.payload, body };
};
/** Allocation in a hot loop: young-generation collections started from compiled code. */
const churn = () => {
  let junk: Array<{ i: number; s: string }> = [];
  for (let i = 0; i < 200_000; i++) {
    junk.push({ i, s: `x${i}` });
    if (junk.length > 20_000) junk = [];
  }
  return junk.length;
};

try {
  writeFileSync(join(dir, 'corrupt.db'), Buffer.alloc(8192, 7));
  let n = 0;
  for (let round = 0; round < 40; round++) {
    const store = new SqliteAlertStore({ path: join(dir, 'alerts.db'), maxSize: 64 * 1024 * 1024 });
    for (let i = 0; i < 20; i++) await store.record(incoming(n++));
    await store.alerts({ limit: 5, maxBytes: 1024 });
    await store.alerts({ limit: 1000, state: 'firing' });
    await store.notifications({ limit: 5, maxBytes: 2048 });
    await store.timeline(`f${round % 50}`);
    await store.summary();
    await store.prune(0);
    await store.close();
    try {
      new SqliteAlertStore({ path: join(dir, 'corrupt.db') });
    } catch {
      // expected: not a database
    }
    churn();
    await new Promise((r) => setTimeout(r, 5));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
