import type Database from 'better-sqlite3';

/**
 * Every better-sqlite3 object vigil makes (connection, statement), kept reachable until the process
 * exits. On Node.js 24 an addon built against its headers (node::ObjectWrap now registers a cleanup
 * hook per object) aborts the whole process when the garbage collector frees one of its objects in
 * a collection that runs with no JavaScript context entered (one started by an allocation in
 * compiled JavaScript, as every abort seen was): `Assertion failed: (env) != nullptr` in
 * node::RemoveEnvironmentCleanupHook, called from ~Statement, ~StatementIterator or ~Database.
 * Nothing here is ever garbage then: statements are prepared once per SQL text and kept, pragmas
 * are set with exec (which makes no statement object), rows are read with all() (an iterator is one
 * more such object per read), and a closed connection stays here (its handle is freed, a few KiB
 * are kept: one per store opened, or per failed attempt to open one).
 */
const KEPT = new Set<object>();

/** Keeps a better-sqlite3 object reachable for the life of the process (see KEPT). */
export function keep<T extends object>(o: T): T {
  KEPT.add(o);
  return o;
}

/** A pragma's value, read through a statement kept for the connection's sake (see KEPT). */
export function pragmaValue(db: Database.Database, name: string): unknown {
  return keep(db.prepare(`PRAGMA ${name}`))
    .pluck()
    .get();
}
