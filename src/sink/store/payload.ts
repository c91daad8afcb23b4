/**
 * A notification as the store takes it: Alertmanager's webhook payload, version "4", once checked
 * and folded at the door (`../payload-schema.ts`, whose output must fit these types). Declared here,
 * below the store and the webhook both, so that the store knows nothing of how a body is parsed.
 */

export const ALERT_STATES = ['firing', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** One alert of a notification. Times are epoch milliseconds. */
export interface PayloadAlert {
  status: AlertState;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: number;
  /** Null while firing (Go's zero time); only meaningful once resolved (trust `status`, not this). */
  endsAt: number | null;
  generatorURL: string;
  fingerprint: string;
}

export interface Payload {
  version: '4';
  groupKey: string;
  truncatedAlerts: number;
  status: AlertState;
  receiver: string;
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  externalURL: string;
  alerts: PayloadAlert[];
  /**
   * The groupKey as sent, when the one stored is folded: a notification's identity (notificationKey)
   * is the group as sent, as it was before values were folded, so a copy stored by an earlier vigil
   * is still found.
   */
  sentGroupKey?: string;
}

/**
 * A notification's alerts handled per turn of the event loop, at the door (checked) and in the
 * store (sent to the SQLite thread, written): a 55k-alert notification must not hold the event loop
 * (and scrapes) for a second.
 */
export const ALERTS_PER_TURN = 2000;
