import { StoreError, type AlertStore, type UnavailableReason } from './alert-store.js';
import type { StoreKind } from './open-store.js';

/** Whether the sink can use its store now; when not, why (a reason label and a message safe to show). */
export type StoreAvailability = { available: true } | { available: false; reason: UnavailableReason; message: string; since: number };

/** Any failure to open a store makes it unavailable; a full disk while creating it is `no_space`. */
function openFailure(e: StoreError): StoreError {
  if (e.kind === 'unavailable') return e;
  return new StoreError('unavailable', e.message, e.kind === 'full' ? 'no_space' : 'cannot_open');
}

/**
 * The one "store unavailable" path of both stores. It opens the store (retrying until it can),
 * turns every failure into a StoreError, and tracks availability: a failure saying the store
 * cannot be used (database unreachable, file corrupt or read-only) marks it unavailable, any
 * later success marks it available again. While it is unreachable, calls fail at once and one
 * probe every retryMs (not each request) finds when it is back. A corrupt SQLite file is closed
 * and reopened (which keeps failing until the file is repaired): nothing is answered from it meanwhile.
 * Callers see StoreError only, so the webhook answers 503 (never 200 for what is not stored)
 * and the read API 503 (never an empty page for what cannot be read).
 */
export class GuardedStore implements AlertStore {
  private inner?: AlertStore;
  private opening?: Promise<void>;
  private retry?: NodeJS.Timeout;
  private closed = false;
  /** Whether onChange has been told anything yet (the first state is always told). */
  private reported = false;
  private state: StoreAvailability;

  constructor(
    private readonly kind: StoreKind,
    private readonly onChange: (a: StoreAvailability) => void,
    private readonly retryMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.state = { available: false, reason: 'cannot_open', message: 'not opened yet', since: now() };
  }

  /** Opens the store now; resolves to the failure (and keeps retrying) when it cannot. */
  async open(): Promise<StoreError | undefined> {
    this.opening ??= this.kind
      .open(
        (e) => this.failed(this.kind.classify('connection to the store', e)),
        () => this.inner && void this.probe(this.inner),
      )
      .then((s) => {
        if (this.closed) return void s.close();
        this.inner = s;
        this.mark({ available: true });
      })
      .catch((e: unknown) => {
        this.failed(openFailure(this.kind.classify('opening the alert store', e)));
        this.scheduleReopen();
      })
      .finally(() => (this.opening = undefined));
    await this.opening;
    return this.state.available ? undefined : new StoreError('unavailable', this.state.message, this.state.reason);
  }

  availability(): StoreAvailability {
    return this.state;
  }

  record = this.guard('storing the notification', (s, ...a: Parameters<AlertStore['record']>) => s.record(...a));
  alerts = this.guard('reading alerts', (s, ...a: Parameters<AlertStore['alerts']>) => s.alerts(...a));
  timeline = this.guard('reading an alert', (s, ...a: Parameters<AlertStore['timeline']>) => s.timeline(...a));
  notifications = this.guard('reading notifications', (s, ...a: Parameters<AlertStore['notifications']>) => s.notifications(...a));
  summary = this.guard('reading totals', (s) => s.summary());
  lastFiring = this.guard('reading the Watchdog', (s, ...a: Parameters<AlertStore['lastFiring']>) => s.lastFiring(...a));
  prune = this.guard('pruning', (s, ...a: Parameters<AlertStore['prune']>) => s.prune(...a));

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.opening;
    const s = this.inner;
    this.inner = undefined;
    await s?.close();
  }

  private guard<A extends unknown[], R>(what: string, call: (s: AlertStore, ...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      const s = this.inner;
      const st = this.state;
      // Known down: answered now, not after the store's timeout; the probe decides when it is back.
      if (!s || this.knownDown()) {
        throw new StoreError('unavailable', `${what}: ${st.available ? 'store closed' : st.message}`, st.available ? 'cannot_open' : st.reason);
      }
      try {
        const r = await call(s, ...args);
        if (!this.state.available) this.mark({ available: true });
        return r;
      } catch (e) {
        const err = this.kind.classify(what, e);
        this.failed(err);
        if (err.reason === 'corrupt' && this.inner === s) {
          this.inner = undefined;
          await s.close().catch(() => undefined);
        }
        if (!this.inner) this.scheduleReopen();
        throw err;
      }
    };
  }

  private failed(e: StoreError): void {
    if (e.kind !== 'unavailable' || !e.reason) return;
    // Still down for the same reason: keep the latest message, without reporting a change.
    if (this.reported && !this.state.available && this.state.reason === e.reason) return void (this.state = { ...this.state, message: e.message });
    this.mark({ available: false, reason: e.reason, message: e.message, since: this.state.available ? this.now() : this.state.since });
    if (this.knownDown()) this.scheduleReopen();
  }

  private mark(a: StoreAvailability): void {
    // A closed store (a start abandoned while it opened, a store replaced) is no one's to report.
    if (this.closed) return;
    this.reported = true;
    this.state = a;
    this.onChange(a);
  }

  /**
   * Unreachable (a database down or black-holed): every call would wait for the store's timeouts
   * to learn it again, holding a connection and a sender's worker each time. Other reasons (a
   * read-only or full file) are found at once by the call itself, and reads may still work.
   */
  private knownDown(): boolean {
    return !this.state.available && this.state.reason === 'unreachable';
  }

  /** One attempt every retryMs, whatever the traffic: reopen a store that is not open, else probe it. */
  private scheduleReopen(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.closed) return;
      if (!this.inner) return void this.open();
      if (this.knownDown()) void this.probe(this.inner);
    }, this.retryMs).unref();
  }

  /** The cheapest read there is (an index lookup that finds nothing): back when it answers. */
  private async probe(s: AlertStore): Promise<void> {
    try {
      await s.lastFiring('');
      if (this.inner === s && !this.state.available) this.mark({ available: true });
    } catch (e) {
      this.failed(this.kind.classify('probing the store', e));
      this.scheduleReopen();
    }
  }
}
