import { createHash } from 'node:crypto';
import type { AlertState, Payload } from './payload.js';

/**
 * What the sink needs from its storage. Asynchronous, and identity-based (a notification is stored
 * once per `key`, whoever writes it), so that a shared database can later back several vigil
 * replicas; `SqliteAlertStore` is the single-process implementation. Times are epoch milliseconds.
 */
export interface AlertStore {
  /**
   * Stores a notification durably, or counts it as a duplicate of the one stored under its key.
   * Once `gone` aborts (its sender left), a notification not yet committed is dropped: the call
   * rejects with a `cancelled` StoreError and nothing of it is stored.
   */
  record(n: IncomingNotification, gone?: AbortSignal): Promise<RecordResult>;
  /**
   * Current alerts, firing first by severity (SEVERITY_ORDER), then newest start, then fingerprint
   * (descending); `next` is where the following page starts. A page holds at most `limit` alerts and ends early once the stored text of the
   * alerts in it (labels, annotations, generator URL) passes `maxBytes`, but never holds none.
   */
  alerts(filter: AlertFilter): Promise<{ alerts: AlertRecord[]; next?: AlertCursor }>;
  /** One alert and every firing/resolved transition of it, oldest first; undefined when unknown. */
  timeline(fingerprint: string): Promise<{ alert: AlertRecord; transitions: TransitionRecord[] } | undefined>;
  /**
   * Newest first; `next` is where the following page starts. A page ends early once the bodies in
   * it pass `maxBytes` (never holding none); bodies past that point are not read.
   */
  notifications(filter: NotificationFilter): Promise<{ notifications: NotificationRecord[]; next?: Cursor }>;
  /** What the metrics show: per-receiver totals (they survive restarts) and current alerts. */
  summary(): Promise<StoreSummary>;
  /** When a notification last mentioned a firing alert of that name. */
  lastFiring(alertname: string): Promise<number | undefined>;
  /** Deletes notifications, transitions and alerts last seen before `before`, and the totals of receivers silent since. */
  prune(before: number): Promise<PruneResult>;
  close(): Promise<void>;
}

/**
 * A notification's identity: its group (as sent, folded or not) and, per alert, fingerprint, status
 * and start. Each Alertmanager of an HA pair sends its own copy of a notification; both copies have
 * this key. It is stored (dedup_key) and never recomputed: change it and a retry of a notification
 * stored before is stored twice.
 */
export function notificationKey(p: Payload): string {
  const alerts = p.alerts.map((a) => [a.fingerprint, a.status, a.startsAt].join('\u0000')).sort();
  return createHash('sha256')
    .update(JSON.stringify([p.sentGroupKey ?? p.groupKey, alerts]))
    .digest('hex');
}

export interface IncomingNotification {
  /** Identity: same group, alerts, statuses and start times → same key (see notificationKey). */
  key: string;
  receivedAt: number;
  payload: Payload;
  /** The body as received, kept verbatim (with the fields vigil does not use). */
  body: string;
}

export interface RecordResult {
  id: number;
  duplicate: boolean;
}

export interface AlertRecord {
  fingerprint: string;
  alertname: string;
  severity: string;
  state: AlertState;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  generatorURL: string;
  receiver: string;
  startsAt: number;
  /** When it resolved (its endsAt, or when the resolution arrived); null while firing. */
  endsAt: number | null;
  firstSeen: number;
  lastSeen: number;
  /** Stored notifications that mentioned it (duplicates not counted). */
  notifications: number;
}

export interface TransitionRecord {
  state: AlertState;
  /** When the notification that made the transition arrived. */
  at: number;
  startsAt: number;
  endsAt: number | null;
  notificationId: number;
}

export interface NotificationRecord {
  id: number;
  receivedAt: number;
  receiver: string;
  status: AlertState;
  groupKey: string;
  alertCount: number;
  truncatedAlerts: number;
  /** Copies received after this one was stored. */
  duplicates: number;
  body: string;
}

export interface AlertFilter {
  state?: AlertState | undefined;
  alertname?: string | undefined;
  severity?: string | undefined;
  /** Only alerts this severe or more (by SEVERITY_ORDER): `warning` leaves out info alerts and any other severity (the Watchdog's `none`). */
  minSeverity?: Severity | undefined;
  limit: number;
  after?: AlertCursor | undefined;
  /** Bytes of stored text a page may hold (see AlertStore.alerts); unbounded when absent. */
  maxBytes?: number | undefined;
}

/**
 * The severities firing alerts are listed by, most urgent first; any other severity (`none`, one
 * of a rule's own, none at all) comes after them. What pages people is what an operator reads first.
 */
export const SEVERITY_ORDER = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITY_ORDER)[number];

/**
 * The position of an alert in the list order: firing first, by severity (its place in
 * SEVERITY_ORDER, `severityRank`, one past the end for any other; 0 for a resolved alert), then
 * newest start, then fingerprint (descending).
 */
export interface AlertCursor {
  firing: boolean;
  severityRank: number;
  startsAt: number;
  fingerprint: string;
}

export interface Cursor {
  receivedAt: number;
  id: number;
}

export interface NotificationFilter {
  since?: number | undefined;
  until?: number | undefined;
  receiver?: string | undefined;
  limit: number;
  after?: Cursor | undefined;
  /** Bytes of bodies a page may hold (see AlertStore.notifications); unbounded when absent. */
  maxBytes?: number | undefined;
}

export interface ReceiverTotals {
  receiver: string;
  firing: number;
  resolved: number;
  duplicates: number;
  truncatedAlerts: number;
  lastNotificationAt?: number | undefined;
}

export interface StoreSummary {
  receivers: ReceiverTotals[];
  alerts: Array<{ state: AlertState; severity: string; count: number }>;
}

export interface PruneResult {
  notifications: number;
  transitions: number;
  alerts: number;
  /**
   * Receivers whose totals were deleted: none of their notifications arrived since `before` (a
   * sender's one-off receiver names must not be kept, and read on every render, forever).
   */
  receivers?: number;
}

/** Why a store cannot be used at all: the `reason` of vigil_alertsink_store_unavailable. */
export const UNAVAILABLE_REASONS = ['unreachable', 'corrupt', 'read_only', 'no_space', 'cannot_open'] as const;
export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

/** A write or read the store could not make: the sender must try again (5xx), nothing was stored. */
export class StoreError extends Error {
  constructor(
    /**
     * full: out of space (or max_size); busy: locked by another writer or a statement timed out;
     * unavailable: the store cannot be used now (database down, file corrupt or read-only), see
     * `reason`; failed: anything else; cancelled: its sender left before it was committed, so it
     * was dropped (see AlertStore.record).
     */
    readonly kind: 'full' | 'busy' | 'unavailable' | 'failed' | 'cancelled',
    message: string,
    readonly reason?: UnavailableReason,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** Rejects a notification whose sender has left (AlertStore.record): checked before each step that would store it. */
export function checkSender(gone: AbortSignal | undefined): void {
  if (gone?.aborted) throw new StoreError('cancelled', 'the sender closed its connection before the notification was stored: dropped');
}

/** Errors of the file system under a store (opening it, its directory) as a StoreError. */
export function fileSystemError(what: string, e: unknown): StoreError | undefined {
  const code = String((e as { code?: unknown }).code ?? '');
  const reason: UnavailableReason | undefined =
    code === 'EROFS'
      ? 'read_only'
      : code === 'ENOSPC' || code === 'EDQUOT'
        ? 'no_space'
        : ['EACCES', 'EPERM', 'ENOTDIR', 'EISDIR', 'EIO'].includes(code)
          ? 'cannot_open'
          : undefined;
  return reason && new StoreError('unavailable', `${what}: ${(e as Error).message}`, reason);
}
