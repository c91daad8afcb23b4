/** Deeper than this, two values are the same only if they are one value (a cycle is never walked). */
const MAX_DEPTH = 12;

const isPlain = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

function sameMaps(a: ReadonlyMap<unknown, unknown>, b: ReadonlyMap<unknown, unknown>, depth: number): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (!b.has(k) || !walk(v, b.get(k), depth)) return false;
  return true;
}

function sameObjects(a: object, b: object, depth: number): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth)) return false;
  }
  return true;
}

function walk(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth >= MAX_DEPTH) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const deeper = depth + 1;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!walk(a[i], other[i], deeper)) return false;
    return true;
  }
  if (a instanceof Uint8Array) return sameBytes(a, b as Uint8Array);
  if (a instanceof Map) return sameMaps(a, b as Map<unknown, unknown>, deeper);
  if (a instanceof Set) return a.size === (b as Set<unknown>).size && [...a].every((x) => (b as Set<unknown>).has(x));
  if (a instanceof Date) return a.getTime() === (b as Date).getTime();
  // An instance of a class may hold what its own keys do not show (#fields, closures): only itself is the same.
  return isPlain(a) && sameObjects(a, b, deeper);
}

/**
 * Whether two values say the same: one value, or plain data (objects, arrays, maps, sets of
 * primitives, dates, bytes) equal all the way down. Anything else (an instance of a class, a
 * function) is the same only as itself, and so is a structure deeper than a decoded answer is.
 * Parts of a value taken from a remembered answer are one object both times, so comparing the value
 * of an unchanged listing costs a pointer comparison per item, not a walk through each.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  return walk(a, b, 0);
}
