import { fileSystemError, StoreError, type UnavailableReason } from './alert-store.js';

// Apart from the connection, so that the main thread, which reads the store thread's errors, never loads better-sqlite3.

/** SQLite result codes (extended codes start with these) that make the whole store unusable. */
const UNUSABLE: ReadonlyArray<[RegExp, UnavailableReason]> = [
  [/^SQLITE_(CORRUPT|NOTADB)/, 'corrupt'],
  [/^SQLITE_READONLY/, 'read_only'],
  [/^SQLITE_(CANTOPEN|IOERR)/, 'cannot_open'],
];

/** An SQLite (or file system) failure as a StoreError (the transaction or savepoint has been rolled back). */
export function sqliteStoreError(what: string, e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  const fs = fileSystemError(what, e);
  if (fs) return fs;
  const code = String((e as { code?: unknown }).code ?? '');
  const message = `${what}: ${code ? `${code}: ` : ''}${(e as Error).message}`;
  const unusable = UNUSABLE.find(([re]) => re.test(code));
  if (unusable) return new StoreError('unavailable', message, unusable[1]);
  const kind = code.startsWith('SQLITE_FULL') ? 'full' : /^SQLITE_(BUSY|LOCKED)/.test(code) ? 'busy' : 'failed';
  return new StoreError(kind, message);
}
