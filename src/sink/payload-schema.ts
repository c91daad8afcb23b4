import { z } from 'zod';
import { describeIssue, keyPath } from '../config-fields/errors.js';
import { ALERT_STATES, ALERTS_PER_TURN, type Payload, type PayloadAlert } from './store/payload.js';
import { foldField, foldSet, type FoldCounts } from './value-folds.js';

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

const expected = (what: string) => (iss: { input?: unknown }) => (iss.input === undefined ? 'required' : `expected ${what}, got ${shown(iss.input)}`);
const status = z.enum(ALERT_STATES, { error: expected('"firing" or "resolved"') });

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

/** The notification without its alerts checked: they are checked in slices, a turn of the event loop each. */
const envelopeSchema = z.object({
  version: z.literal('4', { error: expected('"4" (Alertmanager webhook version 4)') }),
  groupKey: z.string(),
  truncatedAlerts: z.number().int().nonnegative().default(0),
  status,
  receiver: z.string().min(1, 'must not be empty').transform(unescapeReceiver),
  groupLabels: labelSet.default({}),
  commonLabels: labelSet.default({}),
  commonAnnotations: labelSet.default({}),
  externalURL: z.string().default(''),
  alerts: z.array(z.unknown()).min(1, 'must not be empty'),
});

export const payloadSchema = envelopeSchema.extend({ alerts: z.array(alert).min(1, 'must not be empty') });

export type ParseResult = { ok: true; payload: Payload; folded: FoldCounts } | { ok: false; reason: 'json' | 'schema'; error: string; field?: string };

/**
 * Parsing in steps: yields after the JSON is parsed and after each ALERTS_PER_TURN alerts, so a
 * caller can give each step a turn of its own. Issues come in the order one whole-schema check
 * gives them (the envelope's, then each alert's).
 */
function* parseSteps(body: string): Generator<void, ParseResult> {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (e) {
    return { ok: false, reason: 'json', error: `body is not JSON: ${(e as Error).message}` };
  }
  yield;
  const envelope = envelopeSchema.safeParse(raw, { reportInput: true });
  const issues: z.core.$ZodIssue[] = envelope.success ? [] : [...envelope.error.issues];
  // `null`, a number or a string is not an envelope: the schema says so, and there are no alerts to read.
  const rawAlerts = raw !== null && typeof raw === 'object' ? (raw as { alerts?: unknown }).alerts : undefined;
  const alerts: PayloadAlert[] = [];
  const folded: FoldCounts = {};
  if (Array.isArray(rawAlerts)) {
    for (let i = 0; i < rawAlerts.length; i++) {
      if (i > 0 && i % ALERTS_PER_TURN === 0) yield;
      const a = alert.safeParse(rawAlerts[i], { reportInput: true });
      if (a.success) alerts.push(foldAlert(a.data, folded));
      else issues.push(...a.error.issues.map((iss) => ({ ...iss, path: ['alerts', i, ...iss.path] })));
    }
  }
  if (!envelope.success || issues.length > 0) return failure(issues);
  const { receiver, groupKey } = envelope.data;
  const bounded = { receiver: foldField(receiver, 'receiver', folded), groupKey: foldField(groupKey, 'group_key', folded) };
  const sent = bounded.groupKey === groupKey ? {} : { sentGroupKey: groupKey };
  return { ok: true, payload: { ...envelope.data, ...bounded, ...sent, alerts }, folded };
}

/** What of an alert is stored, within STORED_VALUE_LIMITS (what the body says stays in the body). */
function foldAlert(a: PayloadAlert, folded: FoldCounts): PayloadAlert {
  const labels = foldSet(a.labels, 'label_name', 'label_value', folded);
  const annotations = foldSet(a.annotations, 'annotation_name', 'annotation_value', folded);
  const generatorURL = foldField(a.generatorURL, 'generator_url', folded);
  return labels === a.labels && annotations === a.annotations && generatorURL === a.generatorURL ? a : { ...a, labels, annotations, generatorURL };
}

/** The body (already under the size limit) as a payload, or why it is not one: a 400 either way. */
export function parsePayload(body: string): ParseResult {
  const steps = parseSteps(body);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** parsePayload, giving each step (JSON, each slice of alerts) its own turn of the event loop. */
export async function parsePayloadInTurns(body: string, nextTurn: () => Promise<void>): Promise<ParseResult> {
  const steps = parseSteps(body);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}

function failure(issues: z.core.$ZodIssue[]): ParseResult {
  const lines = issues.slice(0, 3).flatMap(describeIssue);
  const more = issues.length > 3 ? ` (+${issues.length - 3} more)` : '';
  return { ok: false, reason: 'schema', error: `${lines.join('; ')}${more}`, field: keyPath(issues[0]?.path ?? []) };
}
