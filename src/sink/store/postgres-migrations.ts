import type pg from 'pg';
import { POSTGRES } from './dialect.js';
import { firstSchema } from './first-schema.js';
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
  // 1: the tables both engines have (first-schema.ts).
  firstSchema(POSTGRES),
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
