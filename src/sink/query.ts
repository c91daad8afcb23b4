import { z } from 'zod';
import { describeIssue, keyPath } from '../config-fields/errors.js';
import { SEVERITY_ORDER, type AlertCursor, type AlertFilter, type Cursor, type NotificationFilter } from './store/alert-store.js';

/** The read API's query strings: unknown or repeated parameters and bad values are 400s naming the parameter. */

/** Opaque to clients; today the position of the last notification of a page. */
export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.receivedAt}.${c.id}`).toString('base64url');
}

const cursor = z.string().transform((s, ctx): Cursor => {
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(s, 'base64url').toString('latin1'));
  if (!m) {
    ctx.addIssue({ code: 'custom', message: 'not a cursor this API returned' });
    return z.NEVER;
  }
  return { receivedAt: Number(m[1]), id: Number(m[2]) };
});

/** Opaque to clients: the list position of the last alert of a page. */
export function encodeAlertCursor(c: AlertCursor): string {
  return Buffer.from(JSON.stringify([c.firing ? 1 : 0, c.startsAt, c.fingerprint, c.severityRank])).toString('base64url');
}

/** A severity rank a cursor may hold; one written before firing alerts were listed by severity has none (0). */
const isRank = (r: unknown) => r === undefined || (Number.isSafeInteger(r) && (r as number) >= 0 && (r as number) <= SEVERITY_ORDER.length);

const alertCursor = z
  .string()
  .max(1024, 'not a cursor this API returned')
  .transform((s, ctx): AlertCursor => {
    let v: unknown;
    try {
      v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    } catch {
      v = undefined;
    }
    if (
      !Array.isArray(v) ||
      v.length < 3 ||
      v.length > 4 ||
      (v[0] !== 0 && v[0] !== 1) ||
      !Number.isSafeInteger(v[1]) ||
      typeof v[2] !== 'string' ||
      !isRank(v[3])
    ) {
      ctx.addIssue({ code: 'custom', message: 'not a cursor this API returned' });
      return z.NEVER;
    }
    return { firing: v[0] === 1, severityRank: v[0] === 1 ? ((v[3] as number | undefined) ?? 0) : 0, startsAt: v[1] as number, fingerprint: v[2] };
  });

/** RFC 3339 or Unix seconds (as the Prometheus API takes them), to epoch ms. */
const time = z.string().transform((s, ctx) => {
  const ms = /^\d+(\.\d+)?$/.test(s) ? Number(s) * 1000 : /^\d{4}-\d{2}-\d{2}T/.test(s) ? Date.parse(s) : NaN;
  if (!Number.isFinite(ms)) {
    ctx.addIssue({ code: 'custom', message: 'expected an RFC 3339 time or Unix seconds' });
    return z.NEVER;
  }
  return ms;
});

const limit = z
  .string()
  .regex(/^\d+$/, 'expected a whole number from 1 to 1000')
  .transform(Number)
  .pipe(z.number().min(1, 'expected a whole number from 1 to 1000').max(1000, 'expected a whole number from 1 to 1000'))
  .default(100);

export const alertsQuery = z
  .strictObject({
    state: z.enum(['firing', 'resolved'], { error: 'expected "firing" or "resolved"' }).optional(),
    alertname: z.string().optional(),
    severity: z.string().optional(),
    min_severity: z.enum(SEVERITY_ORDER, { error: `expected one of ${SEVERITY_ORDER.join(', ')}` }).optional(),
    limit,
    cursor: alertCursor.optional(),
  })
  .transform(({ cursor: after, min_severity: minSeverity, ...rest }): AlertFilter => ({ ...rest, minSeverity, after })) satisfies z.ZodType<AlertFilter>;

export const notificationsQuery = z
  .strictObject({
    since: time.optional(),
    until: time.optional(),
    receiver: z.string().optional(),
    limit,
    cursor: cursor.optional(),
  })
  .superRefine((q, ctx) => {
    if (q.since !== undefined && q.until !== undefined && q.since > q.until) {
      ctx.addIssue({ code: 'custom', path: ['until'], message: 'must not be before since' });
    }
  })
  .transform(({ cursor: after, ...rest }): NotificationFilter => ({ ...rest, after }));

export type QueryResult<T> = { ok: true; value: T } | { ok: false; error: string; parameter: string };

/** Parses `req.query`; an empty value (`alertname=`) means "not given". */
export function parseQuery<T>(schema: z.ZodType<T>, query: Record<string, unknown>): QueryResult<T> {
  const given = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== ''));
  const res = schema.safeParse(given, { reportInput: true });
  if (res.success) return { ok: true, value: res.data };
  const issue = res.error.issues[0] as z.core.$ZodIssue;
  const parameter = issue.code === 'unrecognized_keys' ? (issue.keys[0] as string) : keyPath(issue.path);
  const error = describeIssue(issue)[0]?.replace(/: unknown key$/, ': unknown parameter') ?? 'invalid query';
  return { ok: false, error, parameter };
}
