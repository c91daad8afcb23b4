import { z } from 'zod';
import { describeIssue, keyPath } from '../config/load.js';

/**
 * Alertmanager's webhook payload, version "4" (notify/webhook in Alertmanager): tolerant of fields
 * it does not use (real senders add notification_reason, routeLabels, ...), strict on the types of
 * the ones it knows.
 */

/** A value quoted for an error message, cut short: the message must stay small whatever was sent. */
const shown = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** An RFC 3339 time as Go writes it, in epoch ms; Go's zero time (0001-01-01T00:00:00Z) is null. */
const goTime = z.string().transform((s, ctx) => {
  const ms = RFC3339.test(s) ? Date.parse(s) : NaN;
  if (Number.isNaN(ms)) {
    ctx.addIssue({ code: 'custom', message: `not an RFC 3339 time: ${shown(s)}` });
    return z.NEVER;
  }
  return ms <= 0 ? null : ms;
});

const STATUS = ['firing', 'resolved'] as const;
export type AlertState = (typeof STATUS)[number];
const expected = (what: string) => (iss: { input?: unknown }) => (iss.input === undefined ? 'required' : `expected ${what}, got ${shown(iss.input)}`);
const status = z.enum(STATUS, { error: expected('"firing" or "resolved"') });

const labelSet = z.record(z.string(), z.string());

const alert = z.object({
  status,
  labels: labelSet,
  annotations: labelSet.default({}),
  startsAt: goTime.refine((t) => t !== null, 'the zero time is not a start time'),
  // Zero while firing; only meaningful once resolved (trust `status`, not this).
  endsAt: goTime.default(null),
  generatorURL: z.string().default(''),
  fingerprint: z.string().min(1, 'must not be empty').max(128),
});

/** Alertmanager sends the receiver name through regexp.QuoteMeta: `web\.hook` is `web.hook`. */
export function unescapeReceiver(s: string): string {
  return s.replace(/\\([\\.+*?()|[\]{}^$])/g, '$1');
}

export const payloadSchema = z.object({
  version: z.literal('4', { error: expected('"4" (Alertmanager webhook version 4)') }),
  groupKey: z.string(),
  truncatedAlerts: z.number().int().nonnegative().default(0),
  status,
  receiver: z.string().min(1, 'must not be empty').transform(unescapeReceiver),
  groupLabels: labelSet.default({}),
  commonLabels: labelSet.default({}),
  commonAnnotations: labelSet.default({}),
  externalURL: z.string().default(''),
  alerts: z.array(alert).min(1, 'must not be empty'),
});

export type Payload = z.output<typeof payloadSchema>;
export type PayloadAlert = Payload['alerts'][number];

export type ParseResult =
  | { ok: true; payload: Payload }
  | { ok: false; reason: 'json' | 'schema'; error: string; field?: string };

/** The body (already under the size limit) as a payload, or why it is not one: a 400 either way. */
export function parsePayload(body: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (e) {
    return { ok: false, reason: 'json', error: `body is not JSON: ${(e as Error).message}` };
  }
  const res = payloadSchema.safeParse(raw, { reportInput: true });
  if (res.success) return { ok: true, payload: res.data };
  const issues = res.error.issues;
  const lines = issues.slice(0, 3).flatMap(describeIssue);
  const more = issues.length > 3 ? ` (+${issues.length - 3} more)` : '';
  return { ok: false, reason: 'schema', error: `${lines.join('; ')}${more}`, field: keyPath(issues[0]?.path ?? []) };
}
