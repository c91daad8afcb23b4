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

/** A condition on a text expression: it may hold a value to fold (longer than `limit`, or spelled like a fold). */
const mayFold = (d: Dialect, expr: string, limit: number) => `(${d.bytes(expr)} > ${limit} OR ${expr} LIKE '%…[folded: %')`;

/** A condition on a JSON object column: a name or a value of it may need folding. */
const setMayFold = (d: Dialect, column: string, names: FoldField, values: FoldField) =>
  `EXISTS (SELECT 1 FROM ${d.entries(column)} WHERE ${mayFold(d, 'e.key', LIMIT[names])} OR ${mayFold(d, 'e.value', LIMIT[values])})`;

/** A stored label or annotation set folded as the door folds one. */
function foldSetText(text: string, names: FoldField, values: FoldField): string {
  const set = JSON.parse(text) as Record<string, string>;
  const folded = foldSet(set, names, values, {});
  return folded === set ? text : JSON.stringify(folded);
}

/** Rows looked at per statement: each statement stays short (PostgreSQL's statement_timeout applies). */
const CHUNK = 1000;

/** A table whose rows may hold values to fold, each row folded on its own (rows never merge). */
interface RowFold {
  table: string;
  /** The primary key, and a value below every key. */
  key: string;
  start: SqlValue;
  /** A row with a value to fold. */
  candidate: string;
  read: string[];
  write: string[];
  /** The row's new values of `write`, from its values of `read`. */
  fold(row: Record<string, string>): SqlValue[];
}

/**
 * Every row of a table with a value to fold: the keys are walked CHUNK at a time, and each row to
 * fold is read alone (one may hold megabytes), folded and written back.
 */
function* foldRows(d: Dialect, t: RowFold): FoldSteps {
  const scan = `SELECT ${t.key} AS k, CASE WHEN ${t.candidate} THEN 1 ELSE 0 END AS f FROM ${t.table} WHERE ${t.key} > ? ORDER BY ${t.key} LIMIT ${CHUNK}`;
  const read = `SELECT ${t.read.join(', ')} FROM ${t.table} WHERE ${t.key} = ?`;
  const write = `UPDATE ${t.table} SET ${t.write.map((c) => `${c} = ?`).join(', ')} WHERE ${t.key} = ?`;
  for (let after = t.start; ;) {
    const chunk = (yield spell(d, scan, [after])) as Array<{ k: SqlValue; f: number }>;
    for (const { k, f } of chunk) {
      if (Number(f) !== 1) continue;
      const [row] = (yield spell(d, read, [k])) as Array<Record<string, string>>;
      if (row) yield spell(d, write, [...t.fold(row), k]);
    }
    if (chunk.length < CHUNK) return;
    after = chunk[chunk.length - 1]!.k;
  }
}

/** Alerts: labels and annotations, generator URL, receiver; alertname and severity follow the folded labels. */
const alertFold = (d: Dialect): RowFold => ({
  table: 'alerts',
  key: 'fingerprint',
  start: '',
  candidate: [
    setMayFold(d, 'labels', 'label_name', 'label_value'),
    setMayFold(d, 'annotations', 'annotation_name', 'annotation_value'),
    mayFold(d, 'generator_url', LIMIT.generator_url),
    mayFold(d, 'receiver', LIMIT.receiver),
  ].join(' OR '),
  read: ['labels', 'annotations', 'generator_url', 'receiver'],
  write: ['alertname', 'severity', 'labels', 'annotations', 'generator_url', 'receiver'],
  fold: (r) => {
    const labels = foldSetText(r.labels!, 'label_name', 'label_value');
    const parsed = JSON.parse(labels) as Record<string, string>;
    return [
      parsed.alertname ?? '',
      parsed.severity ?? '',
      labels,
      foldSetText(r.annotations!, 'annotation_name', 'annotation_value'),
      foldValue(r.generator_url!, LIMIT.generator_url),
      foldValue(r.receiver!, LIMIT.receiver),
    ];
  },
});

/** Notifications: receiver and groupKey (the body and the dedup key stay as they are). */
const notificationFold = (d: Dialect): RowFold => ({
  table: 'notifications',
  key: 'id',
  start: 0,
  candidate: `${mayFold(d, 'receiver', LIMIT.receiver)} OR ${mayFold(d, 'group_key', LIMIT.group_key)}`,
  read: ['receiver', 'group_key'],
  write: ['receiver', 'group_key'],
  fold: (r) => [foldValue(r.receiver!, LIMIT.receiver), foldValue(r.group_key!, LIMIT.group_key)],
});

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
 * a key still to be renamed. Few rows (receivers silent past the retention are pruned).
 */
function* foldReceiverTotals(d: Dialect): FoldSteps {
  const rows = (yield spell(d, `SELECT receiver AS v FROM receiver_stats WHERE ${mayFold(d, 'receiver', LIMIT.receiver)}`)) as Array<{ v: string }>;
  const renames = new Map<string, string>();
  for (const { v } of rows) {
    const folded = foldValue(v, LIMIT.receiver);
    if (folded !== v) renames.set(v, folded);
  }
  for (const [from, to] of renameOrder(renames)) yield spell(d, 'UPDATE receiver_stats SET receiver = ? WHERE receiver = ?', [to, from]);
}

/** Every stored value folded as the door folds it today, in the tables both engines have. */
export function* foldStoredValues(d: Dialect): FoldSteps {
  yield* foldRows(d, alertFold(d));
  yield* foldRows(d, notificationFold(d));
  yield* foldReceiverTotals(d);
}
