import type { AlertSinkDeps } from '../../src/sink/service.js';
import type { AlertStore } from '../../src/sink/store/alert-store.js';
import { storeKind } from '../../src/sink/store/open-store.js';

/**
 * A real store whose writes wait at a gate until the test opens it: what the sink hands the store
 * meanwhile (how many notifications, how many bytes of body, and each one's sender signal) is
 * recorded, as a slow store would see it.
 */
export class StoreGate {
  pending = 0;
  pendingBytes = 0;
  maxPending = 0;
  maxPendingBytes = 0;
  /** The sender signal each write was given (undefined when the sink passed none). */
  readonly signals: Array<AbortSignal | undefined> = [];
  private opened = false;
  private readonly waiting: Array<() => void> = [];

  /** The sink's store kind: the real one, with its writes behind this gate. */
  readonly storeKind: NonNullable<AlertSinkDeps['storeKind']> = (cfg) => {
    const real = storeKind(cfg);
    return { ...real, open: async (onIdleError) => this.wrap(await real.open(onIdleError)) };
  };

  open(): void {
    this.opened = true;
    this.waiting.splice(0).forEach((go) => go());
  }

  private wrap(s: AlertStore): AlertStore {
    return {
      record: async (n, gone) => {
        const bytes = Buffer.byteLength(n.body);
        this.signals.push(gone);
        this.pending++;
        this.pendingBytes += bytes;
        this.maxPending = Math.max(this.maxPending, this.pending);
        this.maxPendingBytes = Math.max(this.maxPendingBytes, this.pendingBytes);
        try {
          if (!this.opened) await new Promise<void>((go) => this.waiting.push(go));
          return await s.record(n, gone);
        } finally {
          this.pending--;
          this.pendingBytes -= bytes;
        }
      },
      alerts: (f) => s.alerts(f),
      timeline: (f) => s.timeline(f),
      notifications: (f) => s.notifications(f),
      summary: () => s.summary(),
      lastFiring: (a) => s.lastFiring(a),
      prune: (b) => s.prune(b),
      close: () => s.close(),
    };
  }
}
