import type { PayloadAlert } from './payload.js';
import { StoreError, type AlertStore, type IncomingNotification, type UnavailableReason } from './alert-store.js';

/** What the main thread asks the SQLite store thread (see SqliteThreadStore); `id` pairs a request with its reply. */
export type StoreRequest =
  | { id: number; call: ReadCall; args: unknown[] }
  /** The first slice of a notification's alerts; `total` says how many `more` messages complete it. */
  | { id: number; call: 'record'; n: IncomingNotification; total: number }
  | { id: number; call: 'more'; alerts: PayloadAlert[] }
  /** The sender of notification `id` left: drop it unless it is committed. */
  | { id: number; call: 'cancel' }
  | { id: number; call: 'close' };

/** The calls whose arguments and answers cross as they are (small: pages are bounded by their filters). */
export type ReadCall = Exclude<keyof AlertStore, 'record' | 'close'>;

/** Id 0 answers the opening of the store. */
export type StoreReply = { id: number; ok: unknown } | { id: number; error: WireError };

/** An error as it crosses: a StoreError keeps its kind and reason, an SQLite error its code (classified on the main thread as before). */
export interface WireError {
  message: string;
  code?: string;
  kind?: StoreError['kind'];
  reason?: UnavailableReason;
}

export function toWire(e: unknown): WireError {
  if (e instanceof StoreError) return { message: e.message, kind: e.kind, ...(e.reason ? { reason: e.reason } : {}) };
  const code = (e as { code?: unknown }).code;
  return { message: e instanceof Error ? e.message : String(e), ...(typeof code === 'string' ? { code } : {}) };
}

export function fromWire(w: WireError): Error {
  if (w.kind) return new StoreError(w.kind, w.message, w.reason);
  const e = Object.assign(new Error(w.message), w.code ? { code: w.code } : {});
  e.name = 'SqliteError';
  return e;
}
