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

interface StoredAlert {
  fingerprint: string;
  labels: string;
  annotations: string;
  generator_url: string;
  receiver: string;
}

/** Every alert with a value to fold, one row at a time (a row may hold megabytes): alertname and severity follow the folded labels. */
function* foldAlerts(d: Dialect): FoldSteps {
  const candidate = [
    setMayFold(d, 'labels', 'label_name', 'label_value'),
    setMayFold(d, 'annotations', 'annotation_name', 'annotation_value'),
    mayFold(d, 'generator_url', LIMIT.generator_url),
    mayFold(d, 'receiver', LIMIT.receiver),
  ].join(' OR ');
  const next = `SELECT fingerprint, labels, annotations, generator_url, receiver FROM alerts WHERE fingerprint > ? AND (${candidate}) ORDER BY fingerprint LIMIT 1`;
  for (let after = ''; ;) {
    const [row] = (yield spell(d, next, [after])) as unknown as StoredAlert[];
    if (!row) return;
    after = row.fingerprint;
    const labels = foldSetText(row.labels, 'label_name', 'label_value');
    const parsed = JSON.parse(labels) as Record<string, string>;
    const values: SqlValue[] = [
      parsed.alertname ?? '',
      parsed.severity ?? '',
      labels,
      foldSetText(row.annotations, 'annotation_name', 'annotation_value'),
      foldValue(row.generator_url, LIMIT.generator_url),
      foldValue(row.receiver, LIMIT.receiver),
    ];
    yield spell(d, 'UPDATE alerts SET alertname = ?, severity = ?, labels = ?, annotations = ?, generator_url = ?, receiver = ? WHERE fingerprint = ?', [
      ...values,
      row.fingerprint,
    ]);
  }
}

/**
 * Renames in an order where none lands on a value still to be renamed: a stored value spelled
 * like the fold of another is renamed (folded) before the other is folded onto it, so rows of two
 * values never merge, and a unique column (receiver_stats) never conflicts.
 */
export function renameOrder(renames: ReadonlyMap<string, string>): Array<[from: string, to: string]> {
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

/** Each distinct value of a column with a value to fold, folded wherever it is stored. */
function* foldColumn(d: Dialect, table: string, column: string, field: FoldField): FoldSteps {
  const rows = yield spell(d, `SELECT DISTINCT ${column} AS v FROM ${table} WHERE ${mayFold(d, column, LIMIT[field])}`);
  const renames = new Map<string, string>();
  for (const { v } of rows as Array<{ v: string }>) {
    const folded = foldValue(v, LIMIT[field]);
    if (folded !== v) renames.set(v, folded);
  }
  for (const [from, to] of renameOrder(renames)) yield spell(d, `UPDATE ${table} SET ${column} = ? WHERE ${column} = ?`, [to, from]);
}

/** Every stored value folded as the door folds it today, in the tables both engines have. */
export function* foldStoredValues(d: Dialect): FoldSteps {
  yield* foldAlerts(d);
  yield* foldColumn(d, 'notifications', 'receiver', 'receiver');
  yield* foldColumn(d, 'notifications', 'group_key', 'group_key');
  yield* foldColumn(d, 'receiver_stats', 'receiver', 'receiver');
}
