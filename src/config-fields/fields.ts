import cron from 'node-cron';
import { z } from 'zod';
import { parseDuration, parseSize } from './units.js';
import { readableFile } from './readable-file.js';
import { targetTls } from './target-tls.js';
import { proxyFields } from './target-proxy.js';

export { readableFile };

/** Field types shared by every target kind, each failing with a message a reader can act on. */

export const duration = (def: string) =>
  z
    .string({
      // YAML reads `timeout: 5` as a number: say which unit is missing, not only "expected string".
      error: (iss) =>
        typeof iss.input === 'number' ? `${iss.input} has no unit: a duration is written with one, e.g. "${iss.input}s" (or 500ms, 10m, 1h, 30d)` : undefined,
    })
    .default(def)
    .transform((s, ctx) => {
      const ms = parseDuration(s);
      if (ms === undefined || ms <= 0) {
        ctx.addIssue({ code: 'custom', message: `invalid duration "${s}" (use e.g. 500ms, 5s, 10m, 1h, 30d)` });
        return z.NEVER;
      }
      return ms;
    });

function toBytes(s: string | number, ctx: z.core.$RefinementCtx<string | number>): number {
  const n = parseSize(s);
  if (n === undefined || n <= 0) {
    ctx.addIssue({ code: 'custom', message: `invalid size "${s}" (use e.g. 1048576, 64KiB, 16MiB)` });
    return z.NEVER;
  }
  return n;
}

export const size = (def: string) => z.union([z.string(), z.number()]).default(def).transform(toBytes);

/** A size with no default: absent means "no limit". */
export const optionalSize = z.union([z.string(), z.number()]).transform(toBytes).optional();

/**
 * A bound on what vigil keeps of an answer (items with series of their own, combinations counted): a
 * whole number from `min` to `max`, `def` when absent. Past `max` the config is refused at load: a
 * bound that big is no bound, and a typo of a zero too many would be found by the OOM killer instead.
 */
export const keptAtMost = (def: number, max: number, min = 0) => z.number().int().min(min).max(max).default(def);

/** A node-cron expression; six fields give seconds. */
export const cronExpression = z.string().superRefine((s, ctx) => {
  const v = cron.validateDetailed(s);
  if (!v.valid) {
    const why = v.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    ctx.addIssue({ code: 'custom', message: `invalid cron expression "${s}"${why ? ` (${why})` : ''}` });
  }
});

export const schedule = (def: string) => cronExpression.default(def);

export const httpUrl = z.string().superRefine((s, ctx) => {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    ctx.addIssue({ code: 'custom', message: `invalid URL "${s}"` });
    return;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `invalid URL "${s}": scheme must be http or https` });
  }
  if (u.username || u.password) ctx.addIssue({ code: 'custom', message: 'credentials do not belong in the URL; use token_file' });
});

export const targetName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'must be 1-128 characters of letters, digits, _ . : - (starting with a letter or digit)');

/** The fields every target has, whatever it watches. Spread into each kind's object schema. */
export const targetFields = (defaultSchedule: string) => ({
  name: targetName,
  address: httpUrl,
  token_file: readableFile.optional(),
  tls: targetTls,
  ...proxyFields,
  timeout: duration('5s'),
  schedule: schedule(defaultSchedule),
  max_response_size: size('16MiB'),
});

/** Names must be unique within a list: they become the `target` label. */
export function uniqueNames<T extends { name: string }>(list: T[], ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  list.forEach((t, i) => {
    const first = seen.get(t.name);
    if (first !== undefined) {
      ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate target name "${t.name}" (also at index ${first})` });
    } else seen.set(t.name, i);
  });
}
