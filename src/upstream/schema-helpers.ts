import { z } from 'zod';

const NUMERIC = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** Real servers send some numbers as strings (`"clock_skew_ms": "0"`): accept both, keep a number. */
export const numberish = z.union([z.number(), z.string().trim().regex(NUMERIC, 'expected a number or a numeric string').transform(Number)]);

/**
 * A value from a string-to-string stats map (`"144"`, `"true"`, `"Leader"`): a number when it is one,
 * else undefined. Stats are informational, so a missing or non-numeric one is absent, not a failure.
 */
export const statNumber = z
  .unknown()
  // Optional before the transform: a missing key is absent, not a schema failure of the whole body.
  .optional()
  .transform((v): number | undefined => {
    if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
    return typeof v === 'string' && NUMERIC.test(v.trim()) ? Number(v) : undefined;
  });

/** A stats value kept as text (`"Leader"`); anything else is absent. */
export const statText = z
  .unknown()
  .optional()
  .transform((v): string | undefined => (typeof v === 'string' ? v : undefined));

const GO_UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, μs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|μs|ms|s|m|h))+$/;

/**
 * A duration the upstream's language printed (`"45.2ms"`, `"1m5s"`, `"0"`) or encoded as an integer
 * of nanoseconds (config values), as seconds. Anything else (`"never"`) is undefined: absent.
 */
export function goDurationSeconds(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v / 1e9 : undefined;
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  if (s === '0') return 0;
  if (!GO_DURATION.test(s)) return undefined;
  let total = 0;
  for (const [, n, , unit] of s.matchAll(/(\d+(\.\d+)?)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(n) * (GO_UNIT_SECONDS[unit as string] ?? 0);
  return total;
}

export const statDuration = z.unknown().optional().transform(goDurationSeconds);

/**
 * A field that costs only its own series when it is missing, null or of an unexpected type: the
 * value when `schema` accepts it, else undefined. For every key that is not essential to the answer.
 */
export const lenient = <S extends z.ZodType>(schema: S) =>
  z
    .unknown()
    // Optional before the transform, or a missing key fails the object (see statNumber).
    .optional()
    .transform((v): z.output<S> | undefined => {
      // Absent is the common case (older servers): skip a parse that would build an error to discard.
      if (v === undefined || v === null) return undefined;
      const r = schema.safeParse(v);
      return r.success ? r.data : undefined;
    });

/** Booleans, also as "true"/"false" strings. */
export const boolish = z.union([z.boolean(), z.enum(['true', 'false']).transform((s) => s === 'true')]);

/**
 * `lenient` with the value read by a plain function instead of a nested parse: for the few fields
 * read for every team of a listing and every member of a gossip pool (at a million series, 1.4
 * million organization-access flags and 220,000 members' tags a collection), where a nested
 * `safeParse` each was a tenth of a collection's CPU. `read` must accept exactly what the schema it
 * stands for accepts (test/unit/upstream/schema-helpers.test.ts holds each against its schema).
 */
const lenientBy = <T>(read: (v: unknown) => T | undefined) =>
  z
    .unknown()
    .optional()
    .transform((v): T | undefined => (v === undefined || v === null ? undefined : read(v)));

/** `lenient(z.string())`. */
export const lenientString = lenientBy((v) => (typeof v === 'string' ? v : undefined));

/** `lenient(z.string().min(1))`. */
export const lenientNonEmptyString = lenientBy((v) => (typeof v === 'string' && v.length > 0 ? v : undefined));

/** `boolish`'s value, or undefined where it fails. */
export const readBoolish = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : undefined);

/** `lenient(boolish)`. */
export const lenientBoolish = lenientBy(readBoolish);

/** An object as `z.object` takes it (not null, not an array). */
export const isObjectLike = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `lenient(z.record(z.string(), z.unknown()))` with only the text values of `keys` kept: the
 * record's entries under those keys whose values are strings. For a record vigil reads a few keys of
 * (a gossip member's tags: region, datacenter, build), without copying the others: a pool of 20,000
 * members carries ten tags each.
 */
export const lenientTextPick = <K extends string>(keys: readonly K[]) =>
  lenientBy((v): Partial<Record<K, string>> | undefined => {
    if (!isObjectLike(v)) return undefined;
    const out: Partial<Record<K, string>> = {};
    for (const k of keys) {
      const x = Object.hasOwn(v, k) ? v[k] : undefined;
      if (typeof x === 'string') out[k] = x;
    }
    return out;
  });

/** The zero time of the upstream's language: "never happened". */
const ZERO_EPOCH_SECONDS = -62135596800;

/** ISO 8601 text as epoch seconds, keeping the sub-millisecond digits Date.parse drops (`.44956`). */
function isoSeconds(v: string): number {
  const fraction = /T\d{2}:\d{2}:\d{2}(\.\d+)/.exec(v)?.[1];
  if (fraction === undefined) return Date.parse(v) / 1000;
  return Date.parse(v.replace(fraction, '')) / 1000 + Number(`0${fraction}`);
}

/**
 * A point in time as epoch seconds: ISO 8601 text, epoch seconds as number or string. The zero
 * time (`"-62135596800"`, `0001-01-01T00:00:00Z`) and other pre-1970 values mean "never": undefined.
 */
export const instant = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : isoSeconds(v);
  if (Number.isNaN(n)) {
    ctx.addIssue({ code: 'custom', message: `not a time: "${String(v)}"` });
    return z.NEVER;
  }
  return n <= 0 || n === ZERO_EPOCH_SECONDS ? undefined : n;
});

/** Formats a zod failure as one line naming the field paths: the `schema` reason's message. */
export function schemaMessage(endpoint: string, err: z.ZodError): string {
  const parts = err.issues.slice(0, 3).map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`);
  const more = err.issues.length > 3 ? ` (+${err.issues.length - 3} more)` : '';
  return `${endpoint}: unexpected response: ${parts.join('; ')}${more}`;
}
