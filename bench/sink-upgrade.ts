/**
 * What a value stored whole by an earlier vigil costs later writes, and what folding it on upgrade
 * (SQLite migration 3) gives back: a store written at schema version 2 holding one alert with a
 * 4 MB severity, then one 55,000-alert notification stored into a copy of it opened at version 2
 * (as the earlier vigil kept it), into a copy opened at the latest version (migrated: the value
 * folded), and into an empty store. Ratios are against the empty store of the same run.
 *
 *   npx tsx bench/sink-upgrade.ts
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePayload, payloadSchema } from '../src/sink/payload-schema.js';
import { notificationKey, type IncomingNotification } from '../src/sink/store/alert-store.js';
import { MIGRATIONS } from '../src/sink/store/sqlite-migrations.js';
import { SqliteAlertStore } from '../src/sink/store/sqlite-store.js';
import { notification, type NotificationSpec } from '../test/helpers/alertmanager.js';

const PREVIOUS = 2;
/**
 * After `warning` in the severity index: each new alert's entry (state, `warning`, rowid) goes next
 * to it, and every insert compares against the whole 4 MB key. (One that sorts before, `s`×4 MB,
 * costs a write 1.2 times an empty store's.)
 */
const STORED_SEVERITY = 'x'.repeat(4_000_000);
const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-upgrade-'));
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const seconds = async <T>(work: () => Promise<T> | T): Promise<[number, T]> => {
  const t = performance.now();
  const r = await work();
  return [(performance.now() - t) / 1000, r];
};

/** As the earlier vigil stored a notification: whole (payloadSchema does not fold). */
function storedWhole(spec: NotificationSpec): IncomingNotification {
  const body = JSON.stringify(notification(spec));
  const payload = payloadSchema.parse(JSON.parse(body));
  return { key: notificationKey(payload), receivedAt: Date.now(), payload, body };
}

/** As this vigil's door hands a notification to the store. */
function atTheDoor(spec: NotificationSpec): IncomingNotification {
  const body = JSON.stringify(notification(spec));
  const r = parsePayload(body);
  if (!r.ok) throw new Error(r.error);
  return { key: notificationKey(r.payload), receivedAt: Date.now(), payload: r.payload, body };
}

/** The 55k-alert notification stored into the store at `path` opened with `versions` of the schema. */
async function write55k(path: string, versions: number) {
  const [open_seconds, store] = await seconds(() => new SqliteAlertStore({ path, schemaVersions: versions }));
  const n = atTheDoor({ groupKey: 'g55k', alerts: Array.from({ length: 55_000 }, (_, i) => ({ fingerprint: `f${i}`, severity: 'warning' })) });
  const [write_seconds] = await seconds(() => store.record(n));
  const longest = Math.max(...(await store.summary()).alerts.map((a) => Buffer.byteLength(a.severity)));
  await store.close();
  return { schema_versions: versions, open_seconds: round(open_seconds), write_seconds: round(write_seconds), longest_severity_bytes: longest };
}

try {
  const fixture = join(dir, 'previous.db');
  const previous = new SqliteAlertStore({ path: fixture, schemaVersions: PREVIOUS });
  await previous.record(storedWhole({ groupKey: 'sev', alerts: [{ fingerprint: 'long-severity', severity: STORED_SEVERITY }] }));
  await previous.close();
  for (const copy of ['before.db', 'after.db']) copyFileSync(fixture, join(dir, copy));

  const empty = await write55k(join(dir, 'empty.db'), MIGRATIONS.length);
  const before = await write55k(join(dir, 'before.db'), PREVIOUS);
  const after = await write55k(join(dir, 'after.db'), MIGRATIONS.length);
  // The migration over a store of 55,001 alerts: the unmigrated copy, now written to, opened at last.
  const [migration_seconds] = await seconds(async () => new SqliteAlertStore({ path: join(dir, 'before.db') }).close());
  const result = {
    bench: 'sink-upgrade',
    date: new Date().toISOString(),
    node: process.versions.node,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    stored_severity_bytes: STORED_SEVERITY.length,
    empty_store: empty,
    previous_store_not_migrated: {
      ...before,
      vs_empty: round(before.write_seconds / empty.write_seconds, 1),
      then_migrated_with_55001_alerts_seconds: round(migration_seconds),
    },
    previous_store_migrated: { ...after, vs_empty: round(after.write_seconds / empty.write_seconds, 1) },
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('results/sink-upgrade.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten to bench/results/sink-upgrade.json\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
