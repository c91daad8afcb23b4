import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS } from '../../src/sink/migrations.js';
import { parsePayload } from '../../src/sink/payload-schema.js';
import { SqliteAlertStore } from '../../src/sink/sqlite-store.js';
import { notificationKey, StoreError, type IncomingNotification } from '../../src/sink/store.js';
import { notification } from '../helpers/alertmanager.js';
import { incoming, storeContract, T0 } from '../sink/store-contract.js';

let dir: string;
let path: string;
const open: SqliteAlertStore[] = [];
const openStore = (opts: { maxSize?: number; busyTimeoutMs?: number } = {}) => {
  const s = new SqliteAlertStore({ path, ...opts });
  open.push(s);
  return s;
};
const count = (table: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-store-'));
  path = join(dir, 'nested', 'alerts.db');
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the SQLite alert store', () => {
  it('creates its directory and schema, in WAL mode, at the latest user_version', () => {
    openStore();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('refuses a database written by a newer schema', () => {
    openStore();
    const db = new Database(path);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => new SqliteAlertStore({ path })).toThrow(`schema version ${MIGRATIONS.length + 1} is newer than this vigil knows (${MIGRATIONS.length})`);
  });

  it('applies each pending migration once, in order, and rolls a failing one back whole', () => {
    const db = new Database(':memory:');
    const v1 = ['CREATE TABLE a (x)'];
    migrate(db, v1);
    migrate(db, v1);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    migrate(db, [...v1, 'ALTER TABLE a ADD COLUMN y']);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(() => migrate(db, [...v1, 'ALTER TABLE a ADD COLUMN y', 'CREATE TABLE b (x); CREATE TABLE b (x)'])).toThrow(/already exists/);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'b'").get()).toEqual({ n: 0 });
    db.close();
  });

});

storeContract('SQLite', { open: async () => openStore() });

describe("a notification's identity", () => {
  const key = (body: Record<string, unknown>) => {
    const r = parsePayload(JSON.stringify(body));
    if (!r.ok) throw new Error(r.error);
    return notificationKey(r.payload);
  };

  it('is the same for both copies of an HA pair, and changes with a status or a start', () => {
    const a = key(notification({ alerts: [{ fingerprint: 'f1' }, { fingerprint: 'f2' }] }));
    const fromPeer = key({ ...notification({ alerts: [{ fingerprint: 'f2' }, { fingerprint: 'f1' }] }), externalURL: 'http://am-1:9093' });
    const resolved = key(notification({ alerts: [{ fingerprint: 'f1', status: 'resolved' }, { fingerprint: 'f2' }] }));
    const restarted = key(notification({ alerts: [{ fingerprint: 'f1', startsAt: '2026-11-21T00:00:00Z' }, { fingerprint: 'f2' }] }));
    const otherGroup = key(notification({ groupKey: 'other', alerts: [{ fingerprint: 'f1' }, { fingerprint: 'f2' }] }));
    expect(fromPeer).toBe(a);
    expect(new Set([a, resolved, restarted, otherGroup]).size).toBe(4);
  });
});

describe('a store that cannot write stores nothing and says why', () => {
  // SQLITE_FULL is what a full disk gives; max_page_count makes SQLite give it at a chosen size.
  it('fails as "full" at max_size, without a partial notification', async () => {
    const s = openStore({ maxSize: 256 * 1024 });
    const alerts = Array.from({ length: 50 }, (_, i) => ({ fingerprint: `f${i}`, labels: { pad: 'x'.repeat(200) } }));
    let failure: unknown;
    let stored = 0;
    for (let i = 0; i < 100 && !failure; i++) {
      try {
        await s.record(incoming({ groupKey: `g${i}`, alerts: alerts.map((a) => ({ ...a, startsAt: new Date(T0 + i * 1000).toISOString() })) }));
        stored++;
      } catch (e) {
        failure = e;
      }
    }
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as StoreError).kind).toBe('full');
    expect((failure as StoreError).message).toMatch(/SQLITE_FULL/);
    expect(stored).toBeGreaterThan(0);
    await s.close();
    expect(count('notifications')).toBe(stored);
    expect(count('transitions')).toBe(stored * 50);
  });

  it('fails only the notifications that do not fit when they arrive together', async () => {
    const s = openStore({ maxSize: 256 * 1024 });
    const pad = 'x'.repeat(200);
    const batch = Array.from({ length: 20 }, (_, i) =>
      incoming({ groupKey: `g${i}`, alerts: Array.from({ length: 50 }, (_, j) => ({ fingerprint: `f${i}-${j}`, labels: { pad } })) }),
    );
    const results = await Promise.allSettled(batch.map((n) => s.record(n)));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) expect(f.reason).toMatchObject({ name: 'StoreError', kind: 'full' });
    await s.close();
    expect(count('notifications')).toBe(ok);
    expect(count('alerts')).toBe(ok * 50);
    expect(count('transitions')).toBe(ok * 50);
  });

  // Another connection holding the write lock (a backup, an admin's sqlite3 shell, a second replica).
  it('fails as "busy" while another connection holds the write lock, then works again', async () => {
    const s = openStore({ busyTimeoutMs: 50 });
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const n = incoming({ alerts: [{ fingerprint: 'f1' }] });
    await expect(s.record(n)).rejects.toMatchObject({ name: 'StoreError', kind: 'busy' });
    other.exec('ROLLBACK');
    other.close();
    expect(count('notifications')).toBe(0);
    expect(count('alerts')).toBe(0);
    expect(await s.record(n)).toEqual({ id: 1, duplicate: false });
  });
});
