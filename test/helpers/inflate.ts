/**
 * An answer grown along one of its dimensions, for the bounds tests: a list or a map with its items
 * copied, each copy told apart from the others as a real answer's items are (its map key and the
 * strings that name it made unique), or every string at one place made a megabyte long.
 */
export type Path = ReadonlyArray<string | number>;

/** Keys whose string values name an item (so copies must differ), and not those that classify it. */
const NAMES = /id$|name|addr|pool|class|node|server|host|datacenter|region|member|team|organization/i;
const CLASSIFIES = /status|type|mode|state|version/i;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where the answer can grow: every non-empty list, and every map (an object whose values are all objects), once per shape of path. */
export function dimensionsOf(body: unknown): Path[] {
  const found = new Map<string, Path>();
  const walk = (v: unknown, at: Path) => {
    const shape = at.map((k) => (typeof k === 'number' ? '*' : k)).join('.');
    if (Array.isArray(v)) {
      if (v.length && !found.has(shape)) found.set(shape, at);
      v.forEach((x, i) => walk(x, [...at, i]));
    } else if (isObject(v)) {
      const values = Object.values(v);
      if (values.length && values.every(isObject) && !found.has(shape)) found.set(shape, at);
      for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
    }
  };
  walk(body, []);
  return [...found.values()];
}

/** Every place a string sits, once per shape of path (`Members.*.Name`). */
export function stringsOf(body: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown, at: string[]) => {
    if (typeof v === 'string') found.add(at.join('.'));
    else if (Array.isArray(v)) v.forEach((x) => walk(x, [...at, '*']));
    else if (isObject(v)) for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
  };
  walk(body, []);
  return [...found];
}

/** A copy of an item, its naming strings (and a list's strings: ids, addresses) suffixed with `-n`, at any depth. */
function copyOf(v: unknown, n: number, key = '', element = false): unknown {
  if (typeof v === 'string') return element || (NAMES.test(key) && !CLASSIFIES.test(key)) ? `${v}-${n}` : v;
  if (Array.isArray(v)) return v.map((x) => copyOf(x, n, key, true));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copyOf(x, n, k)]));
  return v;
}

/** The body with the list or map at `path` holding `factor` times its items. */
export function inflate(body: unknown, path: Path, factor: number): unknown {
  const grow = (v: unknown): unknown => {
    if (Array.isArray(v)) return Array.from({ length: v.length * factor }, (_, i) => (i < v.length ? v[i] : copyOf(v[i % v.length], i, '', true)));
    if (isObject(v)) {
      const entries = Object.entries(v);
      const more = Array.from({ length: entries.length * (factor - 1) }, (_, i) => {
        const [k, x] = entries[i % entries.length] as [string, unknown];
        return [`${k}-${i}`, copyOf(x, i)] as const;
      });
      return { ...v, ...Object.fromEntries(more) };
    }
    return v;
  };
  return at(body, path, grow);
}

/** The body with every string at `dotted` (a shape from `stringsOf`) `length` characters long. */
export function withLongStrings(body: unknown, dotted: string, length: number): unknown {
  const long = (s: string) => s.padEnd(length, 'x');
  const walk = (v: unknown, rest: string[]): unknown => {
    if (rest.length === 0) return typeof v === 'string' ? long(v) : v;
    const [head, ...tail] = rest as [string, ...string[]];
    if (head === '*' && Array.isArray(v)) return v.map((x) => walk(x, tail));
    if (isObject(v) && head in v) return { ...v, [head]: walk(v[head], tail) };
    return v;
  };
  return walk(body, dotted === '' ? [] : dotted.split('.'));
}

function at(body: unknown, path: Path, change: (v: unknown) => unknown): unknown {
  if (path.length === 0) return change(body);
  const [head, ...rest] = path;
  if (Array.isArray(body)) return body.map((x, i) => (i === head ? at(x, rest, change) : x));
  if (isObject(body)) return { ...body, [head as string]: at(body[head as string], rest, change) };
  return body;
}
