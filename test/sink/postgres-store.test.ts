import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GuardedStore, type StoreAvailability } from '../../src/sink/store/guarded-store.js';
import { PG_MIGRATIONS, PRUNE_LOCK } from '../../src/sink/store/postgres-migrations.js';
import { PostgresAlertStore, postgresStoreError, type PostgresStoreOptions } from '../../src/sink/store/postgres-store.js';
import { StoreError, type AlertStore } from '../../src/sink/store/alert-store.js';
import { APP_PASSWORD, APP_USER, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { incoming, listAlerts, storeContract, T0 } from '../helpers/store-contract.js';
import { storeUpgrade } from '../helpers/store-upgrade.js';
import { storeStreamContract } from '../helpers/store-stream-contract.js';
import { waitFor } from '../helpers/wait.js';

let db: TestPostgres;
const open: AlertStore[] = [];
const options = (o: Partial<PostgresStoreOptions> = {}): PostgresStoreOptions => ({
  host: '127.0.0.1',
  port: db.port,
  user: APP_USER,
  database: 'vigil',
  password: async () => APP_PASSWORD,
  ssl: false,
  poolSize: 4,
  statementTimeoutMs: 5000,
  connectTimeoutMs: 2000,
  ...o,
});
const openStore = async (o: Partial<PostgresStoreOptions> = {}) => {
  const s = await PostgresAlertStore.open(options(o));
  open.push(s);
  return s;
};
const count = async (table: string) => Number((await db.admin(`SELECT count(*) AS n FROM vigil.${table}`)).rows[0].n);

beforeAll(async () => {
  db = await startPostgres();
}, 120_000);
afterAll(async () => {
  await db?.destroy();
});
beforeEach(async () => {
  if (!(await db.admin('SELECT 1').catch(() => undefined))) await db.start();
  await db.admin(`DROP SCHEMA vigil CASCADE; CREATE SCHEMA vigil AUTHORIZATION ${APP_USER}`);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

storeContract('PostgreSQL', { open: () => openStore() });
storeUpgrade('PostgreSQL', { open: (versions) => openStore({ schemaVersions: versions }), latest: PG_MIGRATIONS.length, longestSeverity: 2000 });
storeStreamContract('PostgreSQL', { open: () => openStore() });

describe('the PostgreSQL alert store, shared by several vigil replicas', () => {
  it('migrates once when replicas start together, and refuses a schema newer than it knows', async () => {
    await Promise.all([openStore(), openStore(), openStore()]);
    expect((await db.admin('SELECT version FROM vigil.vigil_schema_version')).rows).toEqual([{ version: PG_MIGRATIONS.length }]);
    await db.admin('UPDATE vigil.vigil_schema_version SET version = 99');
    await expect(openStore()).rejects.toThrow(`schema version 99 is newer than this vigil knows (${PG_MIGRATIONS.length})`);
  });

  it('stores each notification once whichever replica each copy reaches, copies arriving at the same time', async () => {
    const [a, b] = [await openStore(), await openStore()];
    const distinct = Array.from({ length: 20 }, (_, i) =>
      incoming({ groupKey: `g${i}`, alerts: [{ fingerprint: `f${i % 5}`, startsAt: new Date(T0 + i * 1000).toISOString() }, { fingerprint: 'shared' }] }),
    );
    // Each notification to both replicas at once (an Alertmanager HA pair), every one concurrently.
    const results = await Promise.all(distinct.flatMap((n) => [a.record(n), b.record({ ...n, receivedAt: n.receivedAt + 1 })]));
    for (let i = 0; i < distinct.length; i++) {
      const [x, y] = [results[2 * i], results[2 * i + 1]];
      expect([x?.duplicate, y?.duplicate].sort()).toEqual([false, true]);
      expect(x?.id).toBe(y?.id);
    }
    expect(await count('notifications')).toBe(20);
    expect(Number((await db.admin('SELECT sum(duplicates) AS d FROM vigil.notifications')).rows[0].d)).toBe(20);
    expect((await a.summary()).receivers[0]).toMatchObject({ firing: 20, duplicates: 20 });
    // Both replicas read the same history and state.
    expect(await b.notifications({ limit: 100 })).toEqual(await a.notifications({ limit: 100 }));
    expect(await listAlerts(b)).toEqual(await listAlerts(a));
    expect(await b.timeline('shared')).toEqual(await a.timeline('shared'));
    expect((await a.timeline('shared'))?.transitions).toHaveLength(1);
  });

  it('prunes on one replica at a time: a replica that finds the lock taken skips the round', async () => {
    const s = await openStore();
    await s.record(incoming({ groupKey: 'old', alerts: [{ fingerprint: 'old' }] }, T0 - 40 * 86_400_000));
    const other = await db.client();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [PRUNE_LOCK]);
      expect(await s.prune(T0)).toEqual({ notifications: 0, transitions: 0, alerts: 0, receivers: 0 });
      expect(await count('notifications')).toBe(1);
      await other.query('SELECT pg_advisory_unlock($1)', [PRUNE_LOCK]);
      expect(await s.prune(T0)).toEqual({ notifications: 1, transitions: 1, alerts: 1, receivers: 1 });
    } finally {
      await other.end();
    }
  });

  it('answers a statement that runs past statement_timeout as busy, never hangs, and stores nothing of it', async () => {
    const s = await openStore({ statementTimeoutMs: 300 });
    const locker = await db.client();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE receiver_stats IN ACCESS EXCLUSIVE MODE');
      const err = await s.record(incoming({ alerts: [{ fingerprint: 'f1' }] })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect(err).toMatchObject({ kind: 'busy' });
      expect((err as Error).message).toMatch(/57014/);
      await locker.query('ROLLBACK');
    } finally {
      await locker.end();
    }
    expect(await count('notifications')).toBe(0);
    expect(await count('alerts')).toBe(0);
  });

  it('is unavailable while the database is down, says why, and recovers by itself when it returns', async () => {
    const changes: StoreAvailability[] = [];
    const kind = { name: 'pg', identity: 'pg', open: () => PostgresAlertStore.open(options()), classify: postgresStoreError };
    const s = new GuardedStore(kind, (a) => changes.push(a), 100);
    open.push(s);
    expect(await s.open()).toBeUndefined();
    expect((await s.record(incoming({ groupKey: 'before', alerts: [{ fingerprint: 'f1' }] }))).duplicate).toBe(false);
    await db.stop();
    const down = await s.record(incoming({ groupKey: 'during', alerts: [{ fingerprint: 'f2' }] })).catch((e: unknown) => e);
    expect(down).toMatchObject({ name: 'StoreError', kind: 'unavailable', reason: 'unreachable' });
    await expect(s.notifications({ limit: 10 })).rejects.toMatchObject({ kind: 'unavailable' });
    expect(s.availability()).toMatchObject({ available: false, reason: 'unreachable' });
    await db.start();
    // Known down, a call is answered at once; the background probe (every 100 ms here) finds it back.
    await waitFor('the store available again', async () => (s.availability().available ? true : undefined), 30_000, { everyMs: 50 });
    expect(s.availability()).toEqual({ available: true });
    expect((await s.record(incoming({ groupKey: 'during', alerts: [{ fingerprint: 'f2' }] }))).duplicate).toBe(false);
    expect((await s.notifications({ limit: 10 })).notifications.map((n) => n.groupKey)).toEqual(['during', 'before']);
    expect(changes.map((c) => c.available)).toEqual([true, false, true]);
  });

  it('starts unavailable when the database is down at start, and opens once it is up', async () => {
    await db.stop();
    const kind = { name: 'pg', identity: 'pg', open: () => PostgresAlertStore.open(options({ connectTimeoutMs: 500 })), classify: postgresStoreError };
    const s = new GuardedStore(kind, () => undefined, 100);
    open.push(s);
    expect(await s.open()).toMatchObject({ kind: 'unavailable', reason: 'unreachable' });
    await expect(s.record(incoming({ alerts: [{ fingerprint: 'f1' }] }))).rejects.toMatchObject({ kind: 'unavailable' });
    await db.start();
    await waitFor('the store available again', async () => (s.availability().available ? true : undefined), 30_000, { everyMs: 50 });
    expect(s.availability()).toEqual({ available: true });
    expect((await s.record(incoming({ alerts: [{ fingerprint: 'f1' }] }))).duplicate).toBe(false);
  });
});
