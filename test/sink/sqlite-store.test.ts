import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS } from '../../src/sink/store/sqlite-migrations.js';
import { parsePayload } from '../../src/sink/payload-schema.js';
import { SqliteThreadStore } from '../../src/sink/store/sqlite-thread-store.js';
import { keep, pragmaValue } from '../../src/sink/store/sqlite-kept.js';
import { notificationKey, StoreError } from '../../src/sink/store/alert-store.js';
import { notification } from '../helpers/alertmanager.js';
import { DAY, incoming, storeContract, T0 } from '../helpers/store-contract.js';
import { storeUpgrade } from '../helpers/store-upgrade.js';
import { storeStreamContract } from '../helpers/store-stream-contract.js';
import { tempDir } from '../helpers/temp-dir.js';

let dir: string;
let path: string;
const open: SqliteThreadStore[] = [];
/** The store as vigil opens it: SQLite in its own thread. */
const openStore = async (opts: { maxSize?: number; busyTimeoutMs?: number; schemaVersions?: number } = {}) => {
  const s = await SqliteThreadStore.open({ path, ...opts });
  open.push(s);
  return s;
};
/** What alert_counts must always equal. */
const countsByScan = () => {
  const db = keep(new Database(path, { readonly: true }));
  try {
    return keep(db.prepare('SELECT state, severity, count(*) AS count FROM alerts GROUP BY state, severity ORDER BY state, severity')).all();
  } finally {
    db.close();
  }
};
const count = (table: string) => {
  const db = keep(new Database(path, { readonly: true }));
  try {
    return (keep(db.prepare(`SELECT count(*) AS n FROM ${table}`)).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

beforeEach(() => {
  dir = tempDir('vigil-store-');
  path = join(dir, 'nested', 'alerts.db');
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

storeUpgrade('SQLite', { open: (versions) => openStore({ schemaVersions: versions }), latest: MIGRATIONS.length, longestSeverity: 4_000_000 });

describe('the SQLite alert store', () => {
  it('creates its directory and schema, in WAL mode, at the latest user_version', async () => {
    await openStore();
    const db = keep(new Database(path, { readonly: true }));
    expect(pragmaValue(db, 'user_version')).toBe(MIGRATIONS.length);
    expect(pragmaValue(db, 'journal_mode')).toBe('wal');
    db.close();
  });

  it('refuses a database written by a newer schema', async () => {
    await (await openStore()).close();
    const db = keep(new Database(path));
    db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    await expect(SqliteThreadStore.open({ path })).rejects.toThrow(
      `schema version ${MIGRATIONS.length + 1} is newer than this vigil knows (${MIGRATIONS.length})`,
    );
  });

  it('applies each pending migration once, in order, and rolls a failing one back whole', () => {
    const db = keep(new Database(':memory:'));
    const v1 = ['CREATE TABLE a (x)'];
    migrate(db, v1);
    migrate(db, v1);
    expect(pragmaValue(db, 'user_version')).toBe(1);
    migrate(db, [...v1, 'ALTER TABLE a ADD COLUMN y']);
    expect(pragmaValue(db, 'user_version')).toBe(2);
    expect(() => migrate(db, [...v1, 'ALTER TABLE a ADD COLUMN y', 'CREATE TABLE b (x); CREATE TABLE b (x)'])).toThrow(/already exists/);
    expect(pragmaValue(db, 'user_version')).toBe(2);
    expect(keep(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'b'")).get()).toEqual({ n: 0 });
    // A step that changes what is stored is rolled back whole too.
    const failing = (d: Database.Database) => {
      d.exec('INSERT INTO a (x) VALUES (1)');
      throw new Error('step failed');
    };
    expect(() => migrate(db, [...v1, 'ALTER TABLE a ADD COLUMN y', failing])).toThrow('step failed');
    expect(pragmaValue(db, 'user_version')).toBe(2);
    expect(keep(db.prepare('SELECT count(*) AS n FROM a')).get()).toEqual({ n: 0 });
    db.close();
  });

  it('stores the same notification once and counts the copy as a duplicate', async () => {
    const s = await openStore();
    const n = incoming({ alerts: [{ fingerprint: 'f1', severity: 'critical' }] });
    const first = await s.record(n);
    const second = await s.record({ ...n, receivedAt: T0 + 1000, body: n.body.replace('alertmanager:9093', 'alertmanager-1:9093') });
    expect(first).toEqual({ id: 1, duplicate: false });
    expect(second).toEqual({ id: 1, duplicate: true });
    const page = await s.notifications({ limit: 10 });
    expect(page.notifications).toHaveLength(1);
    expect(page.notifications[0]).toMatchObject({ id: 1, duplicates: 1, receiver: 'web.hook', body: n.body });
    expect((await s.alerts({ limit: 10 })).alerts[0]).toMatchObject({ fingerprint: 'f1', notifications: 1, lastSeen: T0 + 1000 });
    expect((await s.summary()).receivers).toEqual([
      { receiver: 'web.hook', firing: 1, resolved: 0, duplicates: 1, truncatedAlerts: 0, lastNotificationAt: T0 + 1000 },
    ]);
    // The next notification gets the next id: the duplicate used none up.
    expect(await s.record(incoming({ groupKey: 'other', alerts: [{ fingerprint: 'f2' }] }))).toEqual({ id: 2, duplicate: false });
  });

  it('commits notifications arriving together in one transaction, a copy among them as a duplicate', async () => {
    const s = await openStore();
    const n = incoming({ alerts: [{ fingerprint: 'f1' }] });
    const together = await Promise.all([
      s.record(n),
      s.record({ ...n, receivedAt: T0 + 5 }),
      s.record(incoming({ groupKey: 'b', alerts: [{ fingerprint: 'f2' }] })),
    ]);
    expect(together).toEqual([
      { id: 1, duplicate: false },
      { id: 1, duplicate: true },
      { id: 2, duplicate: false },
    ]);
    expect((await s.summary()).receivers[0]).toMatchObject({ firing: 2, duplicates: 1 });
  });

  it('filters alerts by state, alertname and severity', async () => {
    const s = await openStore();
    await s.record(
      incoming({
        alerts: [
          { fingerprint: 'a', alertname: 'Disk', severity: 'critical' },
          { fingerprint: 'b', alertname: 'Disk', severity: 'warning' },
          { fingerprint: 'c', alertname: 'Cpu', severity: 'warning', status: 'resolved' },
        ],
      }),
    );
    const fps = async (f: Omit<Parameters<SqliteThreadStore['alerts']>[0], 'limit'>) =>
      (await s.alerts({ limit: 10, ...f })).alerts.map((a) => a.fingerprint).sort();
    expect(await fps({})).toEqual(['a', 'b', 'c']);
    expect(await fps({ state: 'firing' })).toEqual(['a', 'b']);
    expect(await fps({ state: 'resolved' })).toEqual(['c']);
    expect(await fps({ alertname: 'Disk', severity: 'warning' })).toEqual(['b']);
    expect((await s.summary()).alerts).toEqual([
      { state: 'firing', severity: 'critical', count: 1 },
      { state: 'firing', severity: 'warning', count: 1 },
      { state: 'resolved', severity: 'warning', count: 1 },
    ]);
    // An alert that changes state and severity moves between the counts.
    await s.record(incoming({ groupKey: 'x', alerts: [{ fingerprint: 'a', alertname: 'Disk', severity: 'warning', status: 'resolved' }] }));
    expect((await s.summary()).alerts).toEqual([
      { state: 'firing', severity: 'warning', count: 1 },
      { state: 'resolved', severity: 'warning', count: 2 },
    ]);
    expect((await s.summary()).alerts).toEqual(countsByScan());
  });

  it('pages the history newest first and filters it by time and receiver', async () => {
    const s = await openStore();
    for (let i = 0; i < 5; i++) {
      await s.record(incoming({ groupKey: `g${i}`, receiver: i % 2 ? 'pager' : 'web\\.hook', alerts: [{ fingerprint: `f${i}` }] }, T0 + i * 1000));
    }
    const ids: number[][] = [];
    let after;
    do {
      const page: Awaited<ReturnType<SqliteThreadStore['notifications']>> = await s.notifications({ limit: 2, after });
      ids.push(page.notifications.map((n) => n.id));
      after = page.next;
    } while (after);
    expect(ids).toEqual([[5, 4], [3, 2], [1]]);
    const ofPager = await s.notifications({ limit: 10, receiver: 'pager' });
    expect(ofPager.notifications.map((n) => n.id)).toEqual([4, 2]);
    const window = await s.notifications({ limit: 10, since: T0 + 1000, until: T0 + 3000 });
    expect(window.notifications.map((n) => n.id)).toEqual([4, 3, 2]);
    expect(window.next).toBeUndefined();
  });

  it('prunes what is older than the retention and keeps the counters', async () => {
    const s = await openStore();
    await s.record(incoming({ groupKey: 'old', alerts: [{ fingerprint: 'old' }] }, T0 - 31 * DAY));
    await s.record(incoming({ groupKey: 'new', alerts: [{ fingerprint: 'new' }] }, T0));
    await s.record(incoming({ groupKey: 'old2', alerts: [{ fingerprint: 'old2', severity: 'critical', status: 'resolved' }] }, T0 - 40 * DAY));
    await s.record(incoming({ receiver: 'gone', groupKey: 'gone', alerts: [{ fingerprint: 'gone' }] }, T0 - 35 * DAY));
    expect(await s.prune(T0 - 30 * DAY)).toEqual({ notifications: 3, transitions: 3, alerts: 3, receivers: 1 });
    expect((await s.summary()).alerts).toEqual(countsByScan());
    expect((await s.summary()).alerts).toEqual([{ state: 'firing', severity: '', count: 1 }]);
    expect((await s.notifications({ limit: 10 })).notifications.map((n) => n.groupKey)).toEqual(['new']);
    expect((await s.alerts({ limit: 10 })).alerts.map((a) => a.fingerprint)).toEqual(['new']);
    expect(await s.timeline('old')).toBeUndefined();
    // The receiver still active keeps its totals across the pruned notifications; the silent one goes.
    expect((await s.summary()).receivers).toEqual([expect.objectContaining({ receiver: 'web.hook', firing: 2, resolved: 1 })]);
    expect(await s.prune(T0 - 30 * DAY)).toEqual({ notifications: 0, transitions: 0, alerts: 0, receivers: 0 });
  });

  it('keeps everything across a restart', async () => {
    const s = await openStore();
    await s.record(incoming({ alerts: [{ fingerprint: 'w', alertname: 'Watchdog', severity: 'none' }] }, T0));
    await s.record(incoming({ truncatedAlerts: 2, groupKey: 'x', alerts: [{ fingerprint: 'f1', status: 'resolved' }] }, T0 + 1));
    const before = { n: await s.notifications({ limit: 10 }), a: await s.alerts({ limit: 10 }), t: await s.timeline('f1'), sum: await s.summary() };
    await s.close();
    const again = await openStore();
    expect(await again.notifications({ limit: 10 })).toEqual(before.n);
    expect(await again.alerts({ limit: 10 })).toEqual(before.a);
    expect(await again.timeline('f1')).toEqual(before.t);
    expect(await again.summary()).toEqual(before.sum);
    expect(before.sum.receivers[0]?.truncatedAlerts).toBe(2);
    expect(await again.lastFiring('Watchdog')).toBe(T0);
  });
});

storeContract('SQLite', { open: () => openStore() });
storeStreamContract('SQLite', { open: () => openStore() });

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
    const s = await openStore({ maxSize: 256 * 1024 });
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
    const s = await openStore({ maxSize: 256 * 1024 });
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
    const s = await openStore({ busyTimeoutMs: 50 });
    const other = keep(new Database(path));
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
