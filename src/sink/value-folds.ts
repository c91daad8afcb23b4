import { createHash } from 'node:crypto';

/**
 * Bytes (UTF-8) a value of a notification may hold once stored, by what it is. Longer values are
 * folded at the door, before anything is written: alertname, severity, receiver and the labels are
 * index keys (a megabyte severity made every later write of the alerts index megabytes slower, and
 * PostgreSQL refuses an index entry past about 2.7 KB), and the rest is read back by every page.
 * Folding rather than refusing: Alertmanager retries a 5xx and drops a 4xx, so refusing a
 * notification for one long value would lose (or endlessly retry) every other alert in it.
 */
export const STORED_VALUE_LIMITS = {
  label_name: 256,
  label_value: 1024,
  annotation_name: 256,
  annotation_value: 16_384,
  generator_url: 16_384,
  receiver: 1024,
  group_key: 4096,
} as const;

export type FoldField = keyof typeof STORED_VALUE_LIMITS;
export const FOLD_FIELDS = Object.keys(STORED_VALUE_LIMITS) as FoldField[];

/** Values folded in one notification, by field (fields with none are absent). */
export type FoldCounts = Partial<Record<FoldField, number>>;

/** How every folded value ends: a value that ends so is folded too, fitting or not (see foldValue). */
const MARKER_END = /…\[folded: \d+ bytes, sha256 [0-9a-f]{16}\]$/;

/** Whether `s` ends the way a folded value does. */
export const looksFolded = (s: string): boolean => s.endsWith(']') && MARKER_END.test(s);

/**
 * `s` within `limit` bytes: as it is when it fits, else its head and a marker naming the length and
 * digest of the whole, so two long values that share a head stay two values (no merged alerts).
 * A value that fits but ends like a marker is folded too: a sender could spell the fold of another
 * value, and the two would be stored as one (a distinct notification taken for a copy, one label
 * overwriting another). So a stored value ending in a marker is always a fold, of one value.
 */
export function foldValue(s: string, limit: number): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: most values are known to fit without encoding them.
  if (s.length * 3 <= limit && !looksFolded(s)) return s;
  const bytes = Buffer.byteLength(s);
  if (bytes <= limit && !looksFolded(s)) return s;
  const digest = createHash('sha256').update(s).digest('hex').slice(0, 16);
  const marker = `…[folded: ${bytes} bytes, sha256 ${digest}]`;
  return `${utf8Head(s, limit - Buffer.byteLength(marker))}${marker}`;
}

/** The longest head of `s` that is at most `max` bytes of UTF-8, cut between characters. */
function utf8Head(s: string, max: number): string {
  // Never half a surrogate pair: it would encode as a replacement character.
  const chars = s.slice(0, max).replace(/[\ud800-\udbff]$/, '');
  const head = Buffer.from(chars);
  if (head.length <= max) return chars;
  // Back off to the start of a character: continuation bytes are 10xxxxxx.
  let end = max;
  while (end > 0 && (head[end]! & 0xc0) === 0x80) end--;
  return head.subarray(0, end).toString('utf8');
}

/** A label or annotation set with names and values folded, counting each fold; the same object when nothing was. */
export function foldSet(set: Record<string, string>, names: FoldField, values: FoldField, counts: FoldCounts): Record<string, string> {
  const entries = Object.entries(set);
  let changed = false;
  for (const [i, [k, v]] of entries.entries()) {
    const fk = foldValue(k, STORED_VALUE_LIMITS[names]);
    const fv = foldValue(v, STORED_VALUE_LIMITS[values]);
    if (fk !== k) counts[names] = (counts[names] ?? 0) + 1;
    if (fv !== v) counts[values] = (counts[values] ?? 0) + 1;
    if (fk === k && fv === v) continue;
    entries[i] = [fk, fv];
    changed = true;
  }
  // fromEntries defines each name as its own property: an assignment to `__proto__` would drop that label.
  return changed ? Object.fromEntries(entries) : set;
}

/** One value folded to its field's limit, counting a fold. */
export function foldField(s: string, field: FoldField, counts: FoldCounts): string {
  const f = foldValue(s, STORED_VALUE_LIMITS[field]);
  if (f !== s) counts[field] = (counts[field] ?? 0) + 1;
  return f;
}
