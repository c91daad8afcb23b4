import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ensureWritableDir } from './data-dir.js';
import { migrate, MIGRATIONS } from './sqlite-migrations.js';
import { keep, pragmaValue } from './sqlite-kept.js';

export interface SqliteStoreOptions {
  path: string;
  /** Bytes; a write that would grow the file beyond fails as `full` (SQLITE_FULL). */
  maxSize?: number | undefined;
  /**
   * How long a write waits for another connection's lock. better-sqlite3 is synchronous, so this
   * blocks the store's thread (reads queue behind it): keep it short, the sender retries a 503.
   */
  busyTimeoutMs?: number;
  /** The versions of the schema applied (default: all); fewer open the store as an earlier vigil did (tests and benches of upgrades). */
  schemaVersions?: number;
}

/**
 * A damaged page anywhere in the file (a bad disk, a copy taken mid-write) is found before the
 * store is used, not when a read or a write happens to reach it: a write into a damaged b-tree
 * may be acknowledged and then lost. quick_check reads every page once (in the store's thread);
 * it fails the opening as SQLITE_CORRUPT, so the store is reported `corrupt` and left as it is for
 * the operator to recover (docs/alert-sink.md).
 */
function checkPages(db: Database.Database, path: string): void {
  let found: string[];
  try {
    found = keep(db.prepare('PRAGMA quick_check(3)')).pluck().all() as string[];
  } catch (e) {
    // Damage can stop the check itself.
    if (!/^SQLITE_CORRUPT/.test(String((e as { code?: unknown }).code))) throw e;
    found = [(e as Error).message];
  }
  if (found.length === 1 && found[0] === 'ok') return;
  const what = found
    .join('; ')
    .replace(/\*\*\* in database main \*\*\*\s*/g, '')
    .replace(/\s+/g, ' ')
    .slice(0, 300);
  const advice =
    'vigil neither reads nor writes it; recover what it holds into a new file (sqlite3 .dump or .recover, docs/alert-sink.md) and put that in its place';
  throw Object.assign(new Error(`${path}: damaged pages (quick_check: ${what}): ${advice}`), {
    code: 'SQLITE_CORRUPT',
  });
}

/** Opens the file: WAL journal, synchronous=FULL (a commit is on disk when it returns), pages checked, the schema migrated. */
export function openDatabase(opts: SqliteStoreOptions): Database.Database {
  if (opts.path !== ':memory:') ensureWritableDir(dirname(opts.path));
  const db = keep(new Database(opts.path));
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
    // Temporary tables and sorts in memory: a read-only root filesystem has no writable /tmp.
    db.exec('PRAGMA temp_store = MEMORY');
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(opts.busyTimeoutMs ?? 500))}`);
    if (opts.maxSize !== undefined) {
      const pageSize = pragmaValue(db, 'page_size') as number;
      db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(opts.maxSize / pageSize))}`);
    }
    checkPages(db, opts.path);
    migrate(db, MIGRATIONS.slice(0, opts.schemaVersions ?? MIGRATIONS.length));
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}
