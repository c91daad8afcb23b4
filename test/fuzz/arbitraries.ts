import fc from 'fast-check';

/**
 * Shared settings and generators of the property-based tests. `npm test` runs a bounded number of
 * cases with a fixed seed (the same cases every run); `npm run fuzz` runs many more, seeded at
 * random unless FUZZ_SEED is given (fast-check prints the seed and the shrunk case of a failure).
 */
export const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const seedEnv = process.env.FUZZ_SEED;
export const SETTINGS: fc.Parameters<unknown> = {
  numRuns: RUNS,
  ...(seedEnv === 'random' ? {} : { seed: Number(seedEnv ?? 20261123) }),
};
/** Settings for properties that each cost an HTTP round trip or a collection: fewer cases. */
export const NETWORK_SETTINGS: fc.Parameters<unknown> = { ...SETTINGS, numRuns: Math.max(10, Math.ceil(RUNS / 6)) };

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every path to a value inside a JSON document (the root is []). */
function paths(v: Json, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

/** A copy of `doc` with the value at `path` replaced (or removed, when `replacement` is undefined). */
function replaceAt(doc: Json, path: Array<string | number>, replacement: Json | undefined): Json | undefined {
  if (path.length === 0) return replacement;
  const copy = structuredClone(doc) as Record<string | number, Json>;
  let parent: Record<string | number, Json> = copy;
  for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (replacement === undefined) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else parent[last] = replacement;
  return copy;
}

/** Values that trip decoders: wrong types, huge and negative numbers, odd strings, deep nesting. */
const nasty: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  fc.constantFrom<Json>(null, '', 0, -1, 1e308, -1e308, 2 ** 53 + 1, '1e999', 'NaN', 'true', '\u0000', '\u001b[2J', '__proto__', {}, [], [[[[[]]]]]),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** `doc` with one to four of its values replaced by nasty ones or removed. */
export function mutated(doc: unknown): fc.Arbitrary<unknown> {
  const all = paths(doc as Json);
  return fc.array(fc.tuple(fc.nat(), fc.option(nasty, { nil: undefined })), { minLength: 1, maxLength: 4 }).map((edits) => {
    let out: Json | undefined = doc as Json;
    for (const [i, value] of edits) {
      const current = paths((out ?? null) as Json);
      const path = current[i % current.length] ?? all[0]!;
      out = replaceAt((out ?? null) as Json, path, value);
    }
    return out;
  });
}

/** A valid document, a mutated one, or anything JSON at all. */
export function around(...docs: unknown[]): fc.Arbitrary<unknown> {
  return fc.oneof(fc.constantFrom(...docs), ...docs.map(mutated), fc.jsonValue({ maxDepth: 4 }));
}
