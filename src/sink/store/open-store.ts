import { readFile } from 'node:fs/promises';
import type { AlertStoreConfig } from '../../config-fields/alert-sink.js';
import type { AlertStore, StoreError } from './alert-store.js';
import { PostgresAlertStore, postgresStoreError } from './postgres-store.js';
import { sqliteStoreError } from './sqlite-errors.js';
import { SqliteThreadStore } from './sqlite-thread-store.js';

/** How to open the store a config names, how to read its errors, and how to name it in logs. */
export interface StoreKind {
  /** Safe to log: a file path, or the database URL (which never holds the password). */
  name: string;
  /** Equal for configs that can keep the same open store across a reload. */
  identity: string;
  /**
   * Opens the store. `onLost`: it lost what it works through between calls (an idle connection's
   * error, a store thread that died); `onBack`: it got that back by itself (a new store thread
   * opened the file), so the availability follows the store, not the next call.
   */
  open(onLost: (e: Error) => void, onBack?: () => void): Promise<AlertStore>;
  classify(what: string, e: unknown): StoreError;
}

export function storeKind(cfg: AlertStoreConfig): StoreKind {
  const pgc = cfg.postgres;
  if (!pgc) {
    const path = cfg.path as string;
    return {
      name: path,
      identity: JSON.stringify(['sqlite', path, cfg.max_size]),
      open: (onLost, onBack) => SqliteThreadStore.open({ path, maxSize: cfg.max_size }, { lost: onLost, back: onBack ?? (() => undefined) }),
      classify: sqliteStoreError,
    };
  }
  const passwordFile = pgc.password_file;
  return {
    name: pgc.url.display,
    identity: JSON.stringify(['postgres', pgc]),
    open: async (onIdleError) =>
      PostgresAlertStore.open(
        {
          host: pgc.url.host,
          port: pgc.url.port,
          user: pgc.url.user,
          database: pgc.url.database,
          password: passwordFile ? async () => (await readFile(passwordFile, 'utf8')).trim() : undefined,
          ssl:
            pgc.tls.mode === 'disable'
              ? false
              : { rejectUnauthorized: pgc.tls.mode === 'verify-full', ca: pgc.tls.ca_file ? await readFile(pgc.tls.ca_file, 'utf8') : undefined },
          poolSize: pgc.pool_size,
          statementTimeoutMs: pgc.statement_timeout,
          connectTimeoutMs: pgc.connect_timeout,
        },
        onIdleError,
      ),
    classify: postgresStoreError,
  };
}
