import type Database from 'better-sqlite3';
import { SQLITE } from './dialect.js';
import { keep, pragmaValue } from './sqlite-kept.js';
import { foldStoredValues, type FoldSteps, type Rows } from './stored-folds.js';

/** A version of the schema: SQL, or a step that changes what is stored (run in the same transaction). */
export type SqliteMigration = string | ((db: Database.Database) => void);

/** Runs the statements of `steps` on `db`, sending each read's rows back. */
function runSteps(db: Database.Database, steps: FoldSteps): void {
  const prepared = new Map<string, Database.Statement>();
  let rows: Rows = [];
  for (let step = steps.next(rows); !step.done; step = steps.next(rows)) {
    const { sql, args } = step.value;
    let stmt = prepared.get(sql);
    if (!stmt) prepared.set(sql, (stmt = keep(db.prepare(sql))));
    rows = stmt.reader ? (stmt.all(...args) as Rows) : (stmt.run(...args), []);
  }
}

/**
 * The schema, one entry per version: entry i takes a database from user_version i to i + 1. Append
 * only; never edit an entry that has shipped. Times are epoch milliseconds.
 */
export const MIGRATIONS: readonly SqliteMigration[] = [
  `
  CREATE TABLE notifications (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    dedup_key        TEXT    NOT NULL UNIQUE,
    received_at      INTEGER NOT NULL,
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
    starts_at      INTEGER NOT NULL,
    ends_at        INTEGER,
    first_seen_at  INTEGER NOT NULL,
    last_seen_at   INTEGER NOT NULL,
    last_firing_at INTEGER,
    notifications  INTEGER NOT NULL
  );
  CREATE INDEX alerts_by_state ON alerts (state, severity);
  CREATE INDEX alerts_by_name ON alerts (alertname, last_firing_at);
  CREATE INDEX alerts_by_last_seen ON alerts (last_seen_at);

  CREATE TABLE transitions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    fingerprint     TEXT    NOT NULL,
    state           TEXT    NOT NULL,
    at              INTEGER NOT NULL,
    starts_at       INTEGER NOT NULL,
    ends_at         INTEGER,
    notification_id INTEGER NOT NULL
  );
  CREATE INDEX transitions_by_alert ON transitions (fingerprint, id);
  CREATE INDEX transitions_by_time ON transitions (at);

  -- vigil_alertsink_alerts, kept up to date with the alerts table so that reading it costs no scan.
  CREATE TABLE alert_counts (
    state    TEXT    NOT NULL,
    severity TEXT    NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (state, severity)
  );

  -- Counters behind vigil_alertsink_*_total: kept apart from the rows retention deletes.
  CREATE TABLE receiver_stats (
    receiver             TEXT    PRIMARY KEY,
    firing               INTEGER NOT NULL DEFAULT 0,
    resolved             INTEGER NOT NULL DEFAULT 0,
    duplicates           INTEGER NOT NULL DEFAULT 0,
    truncated_alerts     INTEGER NOT NULL DEFAULT 0,
    last_notification_at INTEGER
  );
  `,
  // 2: the list order of GET /api/v1/alerts within a state (newest start first, then fingerprint,
  // both descending): a page's cursor is one row-value range on it, so a page seeks, never sorts.
  `
  CREATE INDEX alerts_in_list_order ON alerts (state, starts_at, fingerprint);
  `,
  // 3: values stored whole before the door folded them (stored-folds.ts), folded, and the alert
  // counts taken again from the folded severities.
  (db) => {
    runSteps(db, foldStoredValues(SQLITE));
    db.exec(
      'DELETE FROM alert_counts; INSERT INTO alert_counts (state, severity, count) SELECT state, severity, count(*) FROM alerts GROUP BY state, severity',
    );
  },
];

/** Brings the schema to the latest version, each step in its own transaction. */
export function migrate(db: Database.Database, migrations: readonly SqliteMigration[] = MIGRATIONS): void {
  const current = pragmaValue(db, 'user_version') as number;
  if (current > migrations.length) {
    throw new Error(`schema version ${current} is newer than this vigil knows (${migrations.length}): use a newer vigil or another store path`);
  }
  for (let v = current; v < migrations.length; v++) {
    const step = migrations[v] as SqliteMigration;
    db.transaction(() => {
      if (typeof step === 'string') db.exec(step);
      else step(db);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    }).immediate();
  }
}
