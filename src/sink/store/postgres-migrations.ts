import type pg from 'pg';
import { POSTGRES } from './dialect.js';
import { foldStoredValues, type FoldSteps, type Rows } from './stored-folds.js';

/** A version of the schema: SQL, or a step that changes what is stored (run in the same transaction). */
export type PostgresMigration = string | ((client: pg.ClientBase) => Promise<void>);

/** Runs the statements of `steps` on `client`, sending each read's rows back. */
async function runSteps(client: pg.ClientBase, steps: FoldSteps): Promise<void> {
  let rows: Rows = [];
  for (let step = steps.next(rows); !step.done; step = steps.next(rows)) rows = (await client.query(step.value.sql, step.value.args)).rows as Rows;
}

/**
 * The PostgreSQL schema, one entry per version: entry i takes a database from version i to i + 1.
 * Append only; never edit an entry that has shipped. Times are epoch milliseconds (BIGINT), as in
 * the SQLite schema; labels and annotations are the JSON text as received (key order kept).
 * There is no alert_counts table: concurrent writers would all update its few rows; the summary
 * counts the alerts table (indexed by state, severity) instead.
 */
export const PG_MIGRATIONS: readonly PostgresMigration[] = [
  `
  CREATE TABLE notifications (
    id               BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    dedup_key        TEXT    NOT NULL UNIQUE,
    received_at      BIGINT  NOT NULL,
    receiver         TEXT    NOT NULL,
    status           TEXT    NOT NULL,
    group_key        TEXT    NOT NULL,
    alert_count      INTEGER NOT NULL,
    truncated_alerts INTEGER NOT NULL,
    duplicates       INTEGER NOT NULL DEFAULT 0,
    body             TEXT    NOT NULL
  );
  CREATE INDEX notifications_by_time ON notifications (received_at, id);
  CREATE INDEX notifications_by_receiver ON notifications (receiver, received_at, id);

  CREATE TABLE alerts (
    fingerprint    TEXT    PRIMARY KEY,
    alertname      TEXT    NOT NULL,
    severity       TEXT    NOT NULL,
    state          TEXT    NOT NULL,
    labels         TEXT    NOT NULL,
    annotations    TEXT    NOT NULL,
    generator_url  TEXT    NOT NULL,
    receiver       TEXT    NOT NULL,
    starts_at      BIGINT  NOT NULL,
    ends_at        BIGINT,
    first_seen_at  BIGINT  NOT NULL,
    last_seen_at   BIGINT  NOT NULL,
    last_firing_at BIGINT,
    notifications  INTEGER NOT NULL
  );
  CREATE INDEX alerts_by_state ON alerts (state, severity);
  CREATE INDEX alerts_by_name ON alerts (alertname, last_firing_at);
  CREATE INDEX alerts_by_last_seen ON alerts (last_seen_at);

  CREATE TABLE transitions (
    id              BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fingerprint     TEXT    NOT NULL,
    state           TEXT    NOT NULL,
    at              BIGINT  NOT NULL,
    starts_at       BIGINT  NOT NULL,
    ends_at         BIGINT,
    notification_id BIGINT  NOT NULL
  );
  CREATE INDEX transitions_by_alert ON transitions (fingerprint, id);
  CREATE INDEX transitions_by_time ON transitions (at);

  -- Counters behind vigil_alertsink_*_total: kept apart from the rows retention deletes.
  CREATE TABLE receiver_stats (
    receiver             TEXT    PRIMARY KEY,
    firing               BIGINT  NOT NULL DEFAULT 0,
    resolved             BIGINT  NOT NULL DEFAULT 0,
    duplicates           BIGINT  NOT NULL DEFAULT 0,
    truncated_alerts     BIGINT  NOT NULL DEFAULT 0,
    last_notification_at BIGINT
  );
  `,
  // 2: values stored whole before the door folded them (stored-folds.ts), folded.
  (client) => runSteps(client, foldStoredValues(POSTGRES)),
];

/** Advisory lock keys (any constant 64-bit numbers, the same in every vigil): migration and pruning. */
export const MIGRATION_LOCK = 0x7669_6731;
export const PRUNE_LOCK = 0x7669_6732;

/**
 * Brings the schema to the latest version. Replicas starting together take turns on a session
 * advisory lock, so each version is applied once; each step is its own transaction.
 */
export async function migratePostgres(client: pg.ClientBase, migrations: readonly PostgresMigration[] = PG_MIGRATIONS): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS vigil_schema_version (version INTEGER NOT NULL)');
    const rows = (await client.query<{ version: number }>('SELECT version FROM vigil_schema_version')).rows;
    let current = rows[0]?.version ?? 0;
    if (rows.length === 0) await client.query('INSERT INTO vigil_schema_version (version) VALUES (0)');
    if (current > migrations.length) {
      throw new Error(`schema version ${current} is newer than this vigil knows (${migrations.length}): use a newer vigil or another database`);
    }
    for (; current < migrations.length; current++) {
      await client.query('BEGIN');
      try {
        const step = migrations[current] as PostgresMigration;
        await (typeof step === 'string' ? client.query(step) : step(client));
        await client.query('UPDATE vigil_schema_version SET version = $1', [current + 1]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
  }
}
