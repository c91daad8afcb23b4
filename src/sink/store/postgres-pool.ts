import type pg from 'pg';
import { checkSender, StoreError } from './alert-store.js';
import type { Query } from './dialect.js';
import { migratePostgres, PG_MIGRATIONS } from './postgres-migrations.js';

export interface PostgresStoreOptions {
  host: string;
  port: number;
  user: string;
  database: string;
  /** Read when a connection is made, so a rotated password is picked up. */
  password?: (() => Promise<string>) | undefined;
  ssl: false | { rejectUnauthorized: boolean; ca?: string | undefined };
  poolSize: number;
  /** Server-side statement_timeout; the client gives up a little later should the server not answer. */
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** The versions of the schema applied (default: all); fewer open the store as an earlier vigil did (tests and benches of upgrades). */
  schemaVersions?: number | undefined;
}

/** BIGINT (20) and numeric counts come back as numbers: every value stored fits in 2^53 (epoch ms, counters). */
const typesOf = (parsers: typeof pg.types) => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (v: string) => Number(v) : parsers.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
});

/** SQLSTATE classes and codes → what the sink answers. */
const CONNECTION = /^(08|57P0[1-3]|53300|28)/;
const BUSY = new Set(['57014', '40001', '40P01', '55P03']);

/** A node-postgres failure as a StoreError: down or refusing → unavailable; timeout, deadlock → busy. */
export function postgresStoreError(what: string, e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  const err = e as { code?: unknown; message?: string };
  const code = typeof err.code === 'string' ? err.code : '';
  const message = `${what}: ${code ? `${code}: ` : ''}${err.message ?? String(e)}`;
  if (BUSY.has(code) || /Query read timeout/i.test(message)) return new StoreError('busy', message);
  if (code === '53100') return new StoreError('full', message);
  // Socket errors (ECONNREFUSED...), a dropped connection, a connect timeout, the server shutting down.
  if (CONNECTION.test(code) || /^E[A-Z]+$/.test(code) || /Connection terminated|timeout exceeded when trying to connect|not queryable/i.test(message)) {
    return new StoreError('unavailable', message, 'unreachable');
  }
  return new StoreError('failed', message);
}

/** One statement of a transaction: its rows and how many it changed. */
export type Run = <R extends pg.QueryResultRow>(q: Query) => Promise<pg.QueryResult<R>>;

/**
 * The connections of a PostgreSQL store: statements and transactions, every failure a StoreError.
 * More concurrent callers than pool_size queue here, so connect_timeout measures the database, not
 * the queue. Reads waiting for a connection get the next one before transactions do, so a stream
 * of notifications being written never holds the history's pages or the sink's series for long.
 */
export class PostgresPool {
  private readonly waiting = { reads: [] as Array<() => void>, transactions: [] as Array<() => void> };
  private busy = 0;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly size: number,
  ) {}

  /** Connects and migrates; rejects (with the pool closed) when the database cannot be used. */
  static async open(o: PostgresStoreOptions, onIdleError: (e: Error) => void): Promise<PostgresPool> {
    // Loaded by the sinks that store in PostgreSQL only: its modules cost the main thread about 11 MiB of RSS.
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({
      host: o.host,
      port: o.port,
      user: o.user,
      database: o.database,
      ...(o.password ? { password: o.password } : {}),
      ssl: o.ssl,
      max: o.poolSize,
      statement_timeout: o.statementTimeoutMs,
      query_timeout: o.statementTimeoutMs + 2000,
      connectionTimeoutMillis: o.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      application_name: 'vigil',
      types: typesOf(pg.types),
    });
    // A pooled connection the server drops (restart, failover) must not crash the process.
    pool.on('error', onIdleError);
    try {
      const client = await pool.connect();
      try {
        await migratePostgres(client, PG_MIGRATIONS.slice(0, o.schemaVersions ?? PG_MIGRATIONS.length));
      } finally {
        client.release();
      }
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw postgresStoreError('opening the PostgreSQL store', e);
    }
    return new PostgresPool(pool, o.poolSize);
  }

  async rows<R extends pg.QueryResultRow>(what: string, q: Query): Promise<R[]> {
    await this.slot(this.waiting.reads);
    try {
      return (await this.pool.query<R>(q.sql, q.args)).rows;
    } catch (e) {
      throw postgresStoreError(what, e);
    } finally {
      this.free();
    }
  }

  /**
   * Runs `body` in one transaction on one connection: committed when it resolves, rolled back when
   * it throws, or once `gone` aborts before the commit (a notification whose sender left).
   */
  async transaction<T>(what: string, body: (run: Run) => Promise<T>, gone?: AbortSignal): Promise<T> {
    await this.slot(this.waiting.transactions);
    let c: pg.PoolClient;
    try {
      checkSender(gone);
      c = await this.pool.connect();
    } catch (e) {
      this.free();
      throw postgresStoreError(what, e);
    }
    let broken: unknown;
    // A connection dropped between two statements emits 'error' on the checked-out client: without
    // a listener that would end the process; the next statement fails instead and is rolled back.
    const dropped = (e: Error) => (broken = e);
    c.on('error', dropped);
    try {
      await c.query('BEGIN');
      const result = await body((q) => {
        checkSender(gone);
        return c.query(q.sql, q.args);
      });
      checkSender(gone);
      await c.query('COMMIT');
      return result;
    } catch (e) {
      // A connection that failed mid-transaction is thrown away, not returned to the pool.
      await c.query('ROLLBACK').catch((rollbackFailed: unknown) => (broken = rollbackFailed));
      throw postgresStoreError(what, e);
    } finally {
      c.off('error', dropped);
      c.release(broken instanceof Error ? broken : undefined);
      this.free();
    }
  }

  async end(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  /** Waits for a free connection of the pool, in the line given. */
  private async slot(line: Array<() => void>): Promise<void> {
    if (this.busy < this.size) {
      this.busy++;
      return;
    }
    await new Promise<void>((resolve) => line.push(resolve));
  }

  /** Hands the connection to the next waiting caller, if any: reads first. */
  private free(): void {
    const next = this.waiting.reads.shift() ?? this.waiting.transactions.shift();
    if (next) next();
    else this.busy--;
  }
}
