import type { Logger } from 'pino';
import type { AlertSinkConfig } from '../config-fields/alert-sink.js';
import type { Payload } from './store/payload.js';
import type { AlertStore } from './store/alert-store.js';
import type { HealthView } from './views.js';
import { Watchdog } from './watchdog.js';

/**
 * Watches the Watchdog of a running sink: takes it from notifications, reads it from the store
 * (another replica sharing the store may have received it), logs when the alert path breaks or
 * recovers, and says so (`onChange`) for the series.
 */
export class WatchdogMonitor {
  private constructor(
    readonly watchdog: Watchdog,
    private readonly store: AlertStore,
    private readonly log: Logger,
    private readonly now: () => number,
    private readonly onChange: () => void,
  ) {}

  /** A Watchdog that continues from the store's last sighting and the health `previous` last reported. */
  static async start(
    cfg: AlertSinkConfig['watchdog'],
    store: AlertStore,
    since: number,
    previous: Watchdog | undefined,
    deps: { log: Logger; now: () => number; onChange: () => void },
  ): Promise<WatchdogMonitor> {
    const lastSeen = await store.lastFiring(cfg.alertname).catch(() => undefined);
    const watchdog = new Watchdog(cfg.alertname, cfg.max_silence, since, lastSeen, previous?.isHealthy());
    return new WatchdogMonitor(watchdog, store, deps.log, deps.now, deps.onChange);
  }

  /** Reads the store at a quarter of max_silence (within 50 ms and 10 s). */
  timer(): NodeJS.Timeout {
    return setInterval(() => void this.sync(), Math.min(10_000, Math.max(50, this.watchdog.maxSilenceMs / 4))).unref();
  }

  /** A stored notification: does it mention the Watchdog firing? */
  received(payload: Payload, at: number): void {
    if (payload.alerts.some((a) => a.status === 'firing' && a.labels.alertname === this.watchdog.alertname)) this.watchdog.seen(at);
  }

  health(): HealthView {
    const w = this.watchdog;
    const h = w.status(this.now());
    return { healthy: h.healthy, alertname: w.alertname, lastSeen: w.lastSeenAt(), silenceMs: h.silenceMs, maxSilenceMs: w.maxSilenceMs };
  }

  /** Every replica reads when the Watchdog last arrived, whichever replica received it. */
  private async sync(): Promise<void> {
    const at = await this.store.lastFiring(this.watchdog.alertname).catch(() => undefined);
    if (at !== undefined) this.watchdog.seen(at);
    this.check();
  }

  /** Logs a change of health (once), and says it. */
  check(): void {
    const w = this.watchdog;
    const { healthy, changed, silenceMs } = w.evaluate(this.now());
    if (!changed) return;
    const lastSeen = w.lastSeenAt();
    const fields = {
      alertname: w.alertname,
      last_seen: lastSeen === undefined ? 'never' : new Date(lastSeen).toISOString(),
      silence_seconds: Math.round(silenceMs / 1000),
    };
    if (healthy) this.log.info(fields, 'alert path recovered: the Watchdog alert arrives again');
    else this.log.error({ ...fields, max_silence_seconds: w.maxSilenceMs / 1000 }, 'alert path broken: no Watchdog alert for longer than watchdog.max_silence');
    this.onChange();
  }
}
