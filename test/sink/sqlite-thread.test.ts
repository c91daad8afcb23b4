import { join } from 'node:path';
import Database from 'better-sqlite3';
import { keep } from '../../src/sink/store/sqlite-kept.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlertStore } from '../../src/sink/store/alert-store.js';
import { GuardedStore, type StoreAvailability } from '../../src/sink/store/guarded-store.js';
import { storeKind } from '../../src/sink/store/open-store.js';
import { sqliteStoreError } from '../../src/sink/store/sqlite-connection.js';
import { SqliteThreadStore } from '../../src/sink/store/sqlite-thread-store.js';
import { incoming, T0 } from '../helpers/store-contract.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';

let dir: string;
let path: string;
const open: AlertStore[] = [];

beforeEach(() => {
  dir = tempDir('vigil-store-thread-');
  path = join(dir, 'alerts.db');
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

describe('the SQLite store as vigil opens it', () => {
  // A lock held by another connection makes a write wait (busy_timeout): on the main thread that
  // wait held every scrape; in the store's thread the event loop keeps turning.
  it('keeps the event loop turning while a write waits for the lock', async () => {
    const s = await storeKind({ path } as unknown as Parameters<typeof storeKind>[0]).open(() => undefined);
    open.push(s);
    await s.record(incoming({ alerts: [{ fingerprint: 'f0' }] }));
    const other = keep(new Database(path));
    other.exec('BEGIN IMMEDIATE');
    let settled = false;
    const write = s.record(incoming({ groupKey: 'g1', alerts: [{ fingerprint: 'f1' }] })).finally(() => (settled = true));
    // The loop turns with the write still waiting, and this thread itself ends the lock holder's
    // transaction; then the write goes through. A write on this thread would have held the loop
    // for the whole busy_timeout and failed with SQLITE_BUSY instead.
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    other.exec('ROLLBACK');
    other.close();
    await write;
    expect((await s.notifications({ limit: 10 })).notifications).toHaveLength(2);
  });

  it('a thread that dies fails what is in flight as unavailable, comes back, and has every acknowledged notification', async () => {
    const changes: StoreAvailability[] = [];
    // A small heap: reading every 4 MB body at once runs the thread out of memory (the process lives on).
    const kind = {
      name: path,
      identity: path,
      open: () => SqliteThreadStore.open({ path, resourceLimits: { maxOldGenerationSizeMb: 32 }, restartMs: 100 }),
      classify: sqliteStoreError,
    };
    const g = new GuardedStore(kind, (a) => changes.push(a), 100);
    open.push(g);
    expect(await g.open()).toBeUndefined();
    const acked = [];
    for (let i = 0; i < 12; i++) acked.push(await g.record(incoming({ groupKey: `g${i}`, alerts: [{ fingerprint: `f${i}` }] }, T0 + i, 4_000_000)));
    await expect(g.notifications({ limit: 100 })).rejects.toMatchObject({ name: 'StoreError', kind: 'unavailable', reason: 'unreachable' });
    expect(changes.at(-1)).toMatchObject({ available: false, reason: 'unreachable' });
    await waitFor('the store thread started again', async () => ((await g.summary().catch(() => undefined)) ? true : undefined), 20_000);
    expect(g.availability()).toEqual({ available: true });
    const ids = [];
    for (let after, page; (page = await g.notifications({ limit: 2, after, maxBytes: 1 })); after = page.next) {
      ids.push(...page.notifications.map((n) => n.id));
      if (!page.next) break;
    }
    expect(ids.sort((a, b) => a - b)).toEqual(acked.map((r) => r.id));
  });
});
