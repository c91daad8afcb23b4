import { join } from 'node:path';
import Database from 'better-sqlite3';
import { keep } from '../../src/sink/store/sqlite-kept.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlertStore } from '../../src/sink/store/alert-store.js';
import { GuardedStore, type StoreAvailability } from '../../src/sink/store/guarded-store.js';
import { storeKind } from '../../src/sink/store/open-store.js';
import { sqliteStoreError } from '../../src/sink/store/sqlite-errors.js';
import { restartDelay, RESTART_MAX_MS, SqliteThreadStore } from '../../src/sink/store/sqlite-thread-store.js';
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

/**
 * A store whose thread has a small heap: reading every 4 MB body at once (`fill`, then a page of
 * them) runs it out of memory; the process lives on. `inner` is the store the guard wraps.
 */
async function fragileStore(onChange: (a: StoreAvailability) => void, retryMs: number): Promise<{ g: GuardedStore; inner: () => AlertStore }> {
  let inner: AlertStore | undefined;
  const kind = {
    name: path,
    identity: path,
    open: async (onLost: (e: Error) => void, onBack?: () => void) =>
      (inner = await SqliteThreadStore.open({ path, resourceLimits: { maxOldGenerationSizeMb: 32 }, restartMs: 100 }, { lost: onLost, back: onBack! })),
    classify: sqliteStoreError,
  };
  const g = new GuardedStore(kind, onChange, retryMs);
  open.push(g);
  expect(await g.open()).toBeUndefined();
  return { g, inner: () => inner! };
}

/** Twelve notifications of 4 MB each, acknowledged. */
async function fill(s: AlertStore) {
  const acked = [];
  for (let i = 0; i < 12; i++) acked.push(await s.record(incoming({ groupKey: `g${i}`, alerts: [{ fingerprint: `f${i}` }] }, T0 + i, 4_000_000)));
  return acked;
}

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
    const { g } = await fragileStore((a) => changes.push(a), 100);
    const acked = await fill(g);
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

  // Readiness and the series follow the thread, not the next call: no call through the guard fails
  // here, and its own probe is an hour away, so only the store's word can tell the death and the return.
  it('a thread that dies between calls is reported at once, and available again as soon as a new thread has opened the file', async () => {
    const changes: StoreAvailability[] = [];
    const { g, inner } = await fragileStore((a) => changes.push(a), 3_600_000);
    await fill(g);
    await expect(inner().notifications({ limit: 100 })).rejects.toMatchObject({ kind: 'unavailable', reason: 'unreachable' });
    expect(g.availability()).toMatchObject({ available: false, reason: 'unreachable' });
    await waitFor('the store reported back', async () => (g.availability().available ? true : undefined), 20_000, { everyMs: 10 });
    expect(changes.map((c) => c.available)).toEqual([true, false, true]);
    expect((await g.summary()).receivers.map((r) => r.firing)).toEqual([12]);
  });
});

describe('restarting a store thread that died', () => {
  it('waits a second, then twice as long for each thread that died soon after starting, at most 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => restartDelay(n, 1000))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(RESTART_MAX_MS).toBe(30_000);
  });
});
