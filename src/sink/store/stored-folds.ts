import { foldSet, foldValue, STORED_VALUE_LIMITS, type FoldField } from '../value-folds.js';
import { spell, type Dialect, type Query, type SqlValue } from './dialect.js';

/**
 * Folding the values a store holds from before values were folded at the door (value-folds.ts):
 * a vigil that stored them whole left values past today's limits in the indexes (a 4 MB severity
 * made every later write of many alerts slow) and values spelled like a fold. Written once for both
 * engines as a sequence of statements: each engine's migration runs them in its transaction and
 * sends each read's rows back. The dedup keys and the bodies stay as they are: a retry of a
 * notification stored before is still its copy (notificationKey hashes the group as sent).
 */

/** The rows a statement read (none for a write). */
export type Rows = Array<Record<string, unknown>>;
export type FoldSteps = Generator<Query, void, Rows>;

const LIMIT = STORED_VALUE_LIMITS;

/** A stored label or annotation set folded as the door folds one. */
function foldSetText(text: string, names: FoldField, values: FoldField): string {
  const set = JSON.parse(text) as Record<string, string>;
  const folded = foldSet(set, names, values, {});
  return folded === set ? text : JSON.stringify(folded);
}

/** Rows looked at per statement: each statement stays short (PostgreSQL's statement_timeout applies). */
const CHUNK = 1000;
/** Bytes of a value read with its chunk; a longer one is read with its row alone (it may be megabytes). */
const PEEK = 16_384;

/** A table whose rows may hold values to fold, each row folded on its own (rows never merge). */
interface RowFold {
  table: string;
  /** The primary key, and a value below every key. */
  key: string;
  start: SqlValue;
  read: string[];
  write: string[];
  /** The row's new values of `write` from its values of `read`; undefined when nothing changes. */
  fold(row: Record<string, string>): SqlValue[] | undefined;
}

/**
 * Every row of a table, folded where it holds a value to fold: the keys are walked CHUNK at a time
 * with each value up to PEEK bytes, and a row with a longer value is read alone. Whether a value
 * is folded is decided here, as at the door, never by the database (PostgreSQL cannot even read
 * some JSON that vigil stores as text, a \u0000 in a label).
 */
function* foldRows(d: Dialect, t: RowFold): FoldSteps {
  const peeked = t.read.map((c) => `CASE WHEN ${d.bytes(c)} <= ${PEEK} THEN ${c} END AS ${c}`);
  const scan = `SELECT ${t.key} AS k, ${peeked.join(', ')} FROM ${t.table} WHERE ${t.key} > ? ORDER BY ${t.key} LIMIT ${CHUNK}`;
  const read = `SELECT ${t.read.join(', ')} FROM ${t.table} WHERE ${t.key} = ?`;
  const write = `UPDATE ${t.table} SET ${t.write.map((c) => `${c} = ?`).join(', ')} WHERE ${t.key} = ?`;
  for (let after = t.start; ;) {
    const chunk = (yield spell(d, scan, [after])) as Array<Record<string, string | null> & { k: SqlValue }>;
    for (const peek of chunk) {
      const whole = t.read.every((c) => peek[c] !== null);
      const row = whole ? (peek as Record<string, string>) : ((yield spell(d, read, [peek.k])) as Array<Record<string, string>>)[0];
      const values = row && t.fold(row);
      if (values) yield spell(d, write, [...values, peek.k]);
    }
    if (chunk.length < CHUNK) return;
    after = chunk[chunk.length - 1]!.k;
  }
}

/** Alerts: labels and annotations, generator URL, receiver; alertname and severity follow the folded labels. */
const ALERTS: RowFold = {
  table: 'alerts',
  key: 'fingerprint',
  start: '',
  read: ['labels', 'annotations', 'generator_url', 'receiver'],
  write: ['alertname', 'severity', 'labels', 'annotations', 'generator_url', 'receiver'],
  fold: (r) => {
    const labels = foldSetText(r.labels!, 'label_name', 'label_value');
    const annotations = foldSetText(r.annotations!, 'annotation_name', 'annotation_value');
    const generatorUrl = foldValue(r.generator_url!, LIMIT.generator_url);
    const receiver = foldValue(r.receiver!, LIMIT.receiver);
    if (labels === r.labels && annotations === r.annotations && generatorUrl === r.generator_url && receiver === r.receiver) return undefined;
    const parsed = JSON.parse(labels) as Record<string, string>;
    return [parsed.alertname ?? '', parsed.severity ?? '', labels, annotations, generatorUrl, receiver];
  },
};

/** Notifications: receiver and groupKey (the body and the dedup key stay as they are). */
const NOTIFICATIONS: RowFold = {
  table: 'notifications',
  key: 'id',
  start: 0,
  read: ['receiver', 'group_key'],
  write: ['receiver', 'group_key'],
  fold: (r) => {
    const [receiver, groupKey] = [foldValue(r.receiver!, LIMIT.receiver), foldValue(r.group_key!, LIMIT.group_key)];
    return receiver === r.receiver && groupKey === r.group_key ? undefined : [receiver, groupKey];
  },
};

/**
 * Renames of a unique key in an order where none lands on a key still to be renamed: a stored
 * value spelled like the fold of another is renamed (folded) before the other is folded onto it.
 */
function renameOrder(renames: ReadonlyMap<string, string>): Array<[from: string, to: string]> {
  const pending = new Map(renames);
  const order: Array<[string, string]> = [];
  while (pending.size > 0) {
    const before = pending.size;
    for (const [from, to] of pending) {
      if (pending.has(to)) continue;
      order.push([from, to]);
      pending.delete(from);
    }
    if (pending.size === before) throw new Error('folding stored values: renames that form a cycle');
  }
  return order;
}

/**
 * The per-receiver totals, keyed by the receiver itself: renamed in renameOrder, so no rename meets
 * a key still to be renamed. The ones to fold are read at once: every render of the metrics reads
 * them all anyway (and receivers silent past the retention are pruned).
 */
function* foldReceiverTotals(d: Dialect): FoldSteps {
  const long = `${d.bytes('receiver')} > ${LIMIT.receiver} OR receiver LIKE '%…[folded: %'`;
  const rows = (yield spell(d, `SELECT receiver AS v FROM receiver_stats WHERE ${long}`)) as Array<{ v: string }>;
  const renames = new Map<string, string>();
  for (const { v } of rows) {
    const folded = foldValue(v, LIMIT.receiver);
    if (folded !== v) renames.set(v, folded);
  }
  for (const [from, to] of renameOrder(renames)) yield spell(d, 'UPDATE receiver_stats SET receiver = ? WHERE receiver = ?', [to, from]);
}

/** Every stored value folded as the door folds it today, in the tables both engines have. */
export function* foldStoredValues(d: Dialect): FoldSteps {
  yield* foldRows(d, ALERTS);
  yield* foldRows(d, NOTIFICATIONS);
  yield* foldReceiverTotals(d);
}
