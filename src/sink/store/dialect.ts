/**
 * What the SQL of the two stores spells differently. Everything else (queries.ts, writes.ts) is
 * written once, with `?` for each parameter, and spelled for an engine by `spell`.
 */
export interface Dialect {
  /** The i-th (1-based) parameter. */
  param(i: number): string;
  /** The length of a text column in bytes (UTF-8). */
  bytes(column: string): string;
  /** The larger of two values (a scalar function). */
  greatest: string;
  /** A text value compared byte by byte (alerts list in the same order whatever the database's locale). */
  byteOrder(expr: string): string;
  /** The current alerts counted by state and severity, as `state, severity, count`. */
  alertCounts: string;
  /** The column type of a 64-bit integer: times (epoch ms), row ids, and totals that only grow. */
  bigint: string;
  /** What makes a `bigint` column a row id the database assigns, ascending, and the primary key. */
  identity: string;
}

export const SQLITE: Dialect = {
  param: () => '?',
  bytes: (column) => `length(CAST(${column} AS BLOB))`,
  greatest: 'max',
  // BINARY, SQLite's default collation, compares bytes.
  byteOrder: (expr) => expr,
  // Kept up to date with the alerts table (migration 1), so that reading it costs no scan.
  alertCounts: 'SELECT state, severity, count FROM alert_counts ORDER BY state, severity',
  // INTEGER holds up to 64 bits whatever its name; AUTOINCREMENT never hands out an id twice.
  bigint: 'INTEGER',
  identity: 'PRIMARY KEY AUTOINCREMENT',
};

export const POSTGRES: Dialect = {
  param: (i) => `$${i}`,
  bytes: (column) => `octet_length(${column})`,
  greatest: 'greatest',
  byteOrder: (expr) => `${expr} COLLATE "C"`,
  // No counts table: concurrent writers would all update its few rows (see postgres-migrations.ts).
  alertCounts: 'SELECT state, severity, count(*) AS count FROM alerts GROUP BY state, severity ORDER BY state, severity',
  bigint: 'BIGINT',
  identity: 'GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
};

export type SqlValue = string | number | null;

/** A statement and its arguments, spelled for one engine. */
export interface Query {
  sql: string;
  args: unknown[];
}

/** Spells a statement written with `?` for each parameter the dialect's way. */
export function spell(d: Dialect, sql: string, args: SqlValue[] = []): Query {
  let i = 0;
  return { sql: sql.replace(/\?/g, () => d.param(++i)), args };
}

/** A condition written with `?` for each parameter, and their values. */
export type Condition = [sql: string, ...values: SqlValue[]];

/** The conditions joined into a WHERE clause (none: no clause), parameters still `?`. */
export function where(conditions: readonly Condition[]): { sql: string; args: SqlValue[] } {
  return {
    sql: conditions.length ? `WHERE ${conditions.map(([c]) => c).join(' AND ')}` : '',
    args: conditions.flatMap(([, ...values]) => values),
  };
}
