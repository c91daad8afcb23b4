import type Database from 'better-sqlite3';
import { SQLITE } from './dialect.js';
import { firstSchema } from './first-schema.js';
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

/** A table only SQLite keeps: PostgreSQL's concurrent writers would all update its few rows (postgres-migrations.ts). */
const ALERT_COUNTS = `
  -- vigil_alertsink_alerts, kept up to date with the alerts table so that reading it costs no scan.
  CREATE TABLE alert_counts (
    state    TEXT    NOT NULL,
    severity TEXT    NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (state, severity)
  );
`;

/**
 * The schema, one entry per version: entry i takes a database from user_version i to i + 1. Append
 * only; never edit an entry that has shipped. Times are epoch milliseconds.
 */
export const MIGRATIONS: readonly SqliteMigration[] = [
  // 1: the tables both engines have (first-schema.ts), and the alert counts.
  firstSchema(SQLITE, ALERT_COUNTS),
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
