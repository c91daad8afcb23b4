import { z } from 'zod';

/** Real servers send some numbers as strings (`"clock_skew_ms": "0"`): accept both, keep a number. */
export const numberish = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, 'expected a number or a numeric string')
    .transform(Number),
]);

/** Booleans, also as "true"/"false" strings. */
export const boolish = z.union([z.boolean(), z.enum(['true', 'false']).transform((s) => s === 'true')]);

/** The zero time of the upstream's language: "never happened". */
const ZERO_EPOCH_SECONDS = -62135596800;

/**
 * A point in time as epoch seconds: ISO 8601 text, epoch seconds as number or string. The zero
 * time (`"-62135596800"`, `0001-01-01T00:00:00Z`) and other pre-1970 values mean "never": undefined.
 */
export const instant = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : Date.parse(v) / 1000;
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
