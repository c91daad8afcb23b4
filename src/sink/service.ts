import type { RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import type { AlertSinkConfig, Config } from '../config/schema.js';
import { renderGroup } from '../metrics/render.js';
import type { SnapshotStore } from '../metrics/snapshot-store.js';
import { SinkAuth } from './auth.js';
import { REJECT_REASONS, sinkFamilies, type RejectReason } from './families.js';
import type { Payload } from './payload-schema.js';
import { sinkRouter } from './routes.js';
import { GuardedStore, type StoreAvailability } from './guarded-store.js';
import { storeKind, type StoreKind } from './open-store.js';
import { notificationKey, type AlertStore, type RecordResult, type StoreSummary } from './store.js';
import { Watchdog } from './watchdog.js';

/** Node fires longer timers at once (TimeoutOverflowWarning): a 30d prune_interval must not become 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The snapshot-store group of the vigil_alertsink_* series. */
export const SINK_GROUP = 'alertsink';

export interface AlertSinkDeps {
  metrics: SnapshotStore;
  log: Logger;
  now?: () => number;
  /** How to open the store of a config; tests substitute stores that fail. */
  storeKind?: (cfg: AlertSinkConfig['store']) => StoreKind;
  /** How soon an unavailable store is opened again. */
  reopenMs?: number;
}

interface Running {
  cfg: AlertSinkConfig;
  store: GuardedStore;
  identity: string;
  watchdog: Watchdog;
  router: Router;
  timers: NodeJS.Timeout[];
}

/**
 * The webhook alert sink's lifecycle: follows the config (on, off, reconfigured on reload: a new
 * store path or max_size reopens the store, other keys apply in place), owns the store, the
 * Watchdog timer and retention pruning, and publishes vigil_alertsink_* when they change.
 */
export class AlertSinkService {
  /** Mount once; routes to the running sink, or on (404) while the sink is off. */
  readonly routes: RequestHandler = (req, res, next) => {
    if (!this.running) return next();
    this.running.router(req, res, next);
  };

  private running?: Running;
  private startedAt = 0;
  private summary: StoreSummary = { receivers: [], alerts: [] };
  private readonly rejected = new Map<RejectReason, number>(REJECT_REASONS.map((r) => [r, 0]));
  private refresh?: Promise<void>;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly storeKind: (cfg: AlertSinkConfig['store']) => StoreKind;
  private availability: StoreAvailability = { available: true };

  constructor(private readonly deps: AlertSinkDeps) {
    this.log = deps.log.child({ component: 'alertsink' });
    this.now = deps.now ?? Date.now;
    this.storeKind = deps.storeKind ?? storeKind;
  }

  /**
   * Applies a config. A store that cannot be opened at start leaves the sink up but unavailable
   * (503, /readyz says why) while it retries; on a reload, it rejects and keeps the running sink.
   */
  async apply(config: Config): Promise<void> {
    const cfg = config.alert_sink;
    if (!cfg?.enabled) return this.stop();
    const prev = this.running;
    const kind = this.storeKind(cfg.store);
    const sameStore = prev !== undefined && prev.identity === kind.identity;
    const store = sameStore ? prev.store : new GuardedStore(kind, (a) => this.storeChanged(a, kind), this.deps.reopenMs ?? 5000, this.now);
    if (!sameStore) {
      const failure = await store.open();
      if (failure && prev) {
        await store.close();
        throw new Error(`alert_sink.store.${cfg.store.postgres ? 'postgres' : 'path'}: cannot open ${kind.name}: ${failure.message}`);
      }
    }
    if (!prev) this.startedAt = this.now();
    const lastSeen = await store.lastFiring(cfg.watchdog.alertname).catch(() => undefined);
    const watchdog = new Watchdog(cfg.watchdog.alertname, cfg.watchdog.max_silence, this.startedAt, lastSeen, prev?.watchdog.isHealthy());
    if (prev) {
      prev.timers.forEach(clearInterval);
      if (!sameStore) await prev.store.close();
    }
    const r: Running = { cfg, store, identity: kind.identity, watchdog, router: this.router(cfg, store, watchdog), timers: [] };
    this.running = r;
    r.timers.push(
      setInterval(() => void this.syncWatchdog(r), Math.min(10_000, Math.max(50, cfg.watchdog.max_silence / 4))).unref(),
      setInterval(() => void this.prune(r), Math.min(cfg.store.prune_interval, MAX_TIMER_MS)).unref(),
    );
    await this.prune(r);
    await this.refreshSummary(r);
    this.checkWatchdog(r);
    this.log.info(
      { store: kind.name, retention_days: cfg.store.retention / 86_400_000, auth: [cfg.bearer_token_file ? 'bearer' : '', cfg.basic_auth ? 'basic' : ''].filter(Boolean).join('+') || 'none' },
      'alert sink ready',
    );
  }

  /** Not ready while the store cannot be used: a load balancer then sends notifications elsewhere. */
  readiness(): { ready: boolean; reason?: string } {
    const a = this.running ? this.availability : { available: true as const };
    return a.available ? { ready: true } : { ready: false, reason: `alert_sink: store unavailable (${a.reason}): ${a.message}` };
  }

  private storeChanged(a: StoreAvailability, kind: StoreKind): void {
    const was = this.availability;
    this.availability = a;
    if (a.available && !was.available) this.log.info({ store: kind.name }, 'alert store available again');
    if (!a.available && (was.available || was.reason !== a.reason)) this.log.error({ store: kind.name, reason: a.reason, err: a.message }, 'alert store unavailable: the webhook answers 503 until it returns');
    const r = this.running;
    if (r && a.available) void this.refreshSummary(r);
    this.publish();
  }

  async stop(): Promise<void> {
    const r = this.running;
    if (!r) return;
    this.running = undefined;
    r.timers.forEach(clearInterval);
    await this.refresh?.catch(() => undefined);
    await r.store.close();
    this.deps.metrics.replace(SINK_GROUP, new Map());
  }

  private router(cfg: AlertSinkConfig, store: AlertStore, watchdog: Watchdog): Router {
    return sinkRouter({
      auth: new SinkAuth(cfg),
      bodyLimit: cfg.body_limit,
      store,
      log: this.log,
      receive: (payload, body) => this.receive(store, watchdog, payload, body),
      refused: (reason) => {
        this.rejected.set(reason, (this.rejected.get(reason) ?? 0) + 1);
        this.publish();
      },
      health: () => {
        const h = watchdog.status(this.now());
        return { healthy: h.healthy, alertname: watchdog.alertname, lastSeen: watchdog.lastSeenAt(), silenceMs: h.silenceMs, maxSilenceMs: watchdog.maxSilenceMs };
      },
    });
  }

  private async receive(store: AlertStore, watchdog: Watchdog, payload: Payload, body: string): Promise<RecordResult> {
    const receivedAt = this.now();
    const result = await store.record({ key: notificationKey(payload), receivedAt, payload, body });
    if (payload.alerts.some((a) => a.status === 'firing' && a.labels.alertname === watchdog.alertname)) watchdog.seen(receivedAt);
    this.log.debug(
      { receiver: payload.receiver, status: payload.status, alerts: payload.alerts.length, id: result.id, duplicate: result.duplicate },
      'notification received',
    );
    const r = this.running;
    if (r?.store === store) {
      this.checkWatchdog(r);
      void this.refreshSummary(r);
    }
    return result;
  }

  /** Re-reads the totals from the store, once for any number of notifications arriving meanwhile. */
  private refreshSummary(r: Running): Promise<void> {
    this.refresh ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        this.refresh = undefined;
        if (this.running !== r) return;
        this.summary = await r.store.summary();
        this.publish();
      })
      .catch((e: unknown) => this.log.error({ err: (e as Error).message }, 'cannot read alert sink totals'));
    return this.refresh;
  }

  /** Another replica sharing the store may have received the Watchdog: every replica reads when it last arrived. */
  private async syncWatchdog(r: Running): Promise<void> {
    const at = await r.store.lastFiring(r.watchdog.alertname).catch(() => undefined);
    if (at !== undefined) r.watchdog.seen(at);
    this.checkWatchdog(r);
  }

  private checkWatchdog(r: Running): void {
    const w = r.watchdog;
    const { healthy, changed, silenceMs } = w.evaluate(this.now());
    if (!changed) return;
    const lastSeen = w.lastSeenAt();
    const fields = { alertname: w.alertname, last_seen: lastSeen === undefined ? 'never' : new Date(lastSeen).toISOString(), silence_seconds: Math.round(silenceMs / 1000) };
    if (healthy) this.log.info(fields, 'alert path recovered: the Watchdog alert arrives again');
    else this.log.error({ ...fields, max_silence_seconds: w.maxSilenceMs / 1000 }, 'alert path broken: no Watchdog alert for longer than watchdog.max_silence');
    this.publish();
  }

  private async prune(r: Running): Promise<void> {
    try {
      const pruned = await r.store.prune(this.now() - r.cfg.store.retention);
      if (pruned.notifications + pruned.transitions + pruned.alerts === 0) return;
      this.log.info(pruned, 'pruned alert history past retention');
      await this.refreshSummary(r);
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'cannot prune alert history');
    }
  }

  private publish(): void {
    const w = this.running?.watchdog;
    if (!w) return;
    const lastSeen = w.lastSeenAt();
    this.deps.metrics.replace(
      SINK_GROUP,
      renderGroup(sinkFamilies, { summary: this.summary, rejected: this.rejected, store: this.availability, watchdog: { lastSeenSeconds: lastSeen === undefined ? undefined : lastSeen / 1000, healthy: w.isHealthy() } }, {}),
    );
  }
}
