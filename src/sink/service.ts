import type http from 'node:http';
import type { RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import { isLoopbackAddress } from '../config/listen-address.js';
import { timerMs } from '../config/units.js';
import type { AlertSinkConfig, Config } from '../config/schema.js';
import { capText } from '../support/cap-text.js';
import { renderGroup } from '../metrics/render.js';
import type { SnapshotStore } from '../metrics/snapshot-store.js';
import { SinkAuth } from './auth.js';
import { REJECT_REASONS, sinkFamilies, type RejectReason } from './families.js';
import { boundSummary } from './label-bounds.js';
import type { Payload } from './payload-schema.js';
import { InFlight } from '../support/request-body.js';
import { sinkRouter, WEBHOOK_PATH, type SinkRouteDeps } from './routes.js';
import { GuardedStore, type StoreAvailability } from './guarded-store.js';
import { storeKind, type StoreKind } from './store/open-store.js';
import { notificationKey, type AlertStore, type RecordResult, type StoreSummary } from './store.js';
import { Watchdog } from './watchdog.js';

/**
 * The vigil_alertsink_* series are rendered at most this often: a flood of requests (refused ones
 * included) costs one store read and one render per interval, not one per request.
 */
export const METRICS_INTERVAL_MS = 1000;

/** The snapshot-store group of the vigil_alertsink_* series. */
export const SINK_GROUP = 'alertsink';

export interface AlertSinkDeps {
  metrics: SnapshotStore;
  log: Logger;
  now?: () => number;
  /** Whether a request passed web-config basic auth: the read API then needs nothing more. */
  authenticated?: (req: http.IncomingMessage) => boolean;
  /** Where the server listens (HOST:PORT): an unauthenticated sink is refused beyond loopback. */
  listenAddress: string;
  /** The history's status pages, mounted behind the read API's credentials. */
  pages?: SinkRouteDeps['pages'];
  /** How to open the store of a config; tests substitute stores that fail. */
  storeKind?: (cfg: AlertSinkConfig['store']) => StoreKind;
  /** How soon an unavailable store is opened again. */
  reopenMs?: number;
}

interface PendingRender {
  timer?: NodeJS.Timeout | undefined;
  running?: Promise<void>;
}

interface Running {
  cfg: AlertSinkConfig;
  store: GuardedStore;
  identity: string;
  watchdog: Watchdog;
  router: Router;
  auth: SinkAuth;
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
  /** One count across reloads, so a reload does not let twice the cap in. */
  private readonly inFlight = new InFlight(1);
  private readonly rejected = new Map<RejectReason, number>(REJECT_REASONS.map((r) => [r, 0]));
  /** A render is due: the next one is scheduled, or running. */
  private pending?: PendingRender;
  private dirty = false;
  private summaryStale = false;
  private lastRender = -Infinity;
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
    this.checkExposure(cfg);
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
      if (!sameStore) {
        await this.settleRender();
        await prev.store.close();
      }
    }
    const auth = new SinkAuth(cfg);
    const r: Running = { cfg, store, identity: kind.identity, watchdog, auth, router: this.router(cfg, auth, store, watchdog), timers: [] };
    this.running = r;
    r.timers.push(
      setInterval(() => void this.syncWatchdog(r), Math.min(10_000, Math.max(50, cfg.watchdog.max_silence / 4))).unref(),
      setInterval(() => void this.prune(r), timerMs(cfg.store.prune_interval)).unref(),
    );
    await this.prune(r);
    this.summaryStale = true;
    await this.render(r);
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
    if (r && a.available) this.changed(true);
    else this.changed(false);
  }

  /** Anyone who reaches an unauthenticated sink can forge a Watchdog: only on loopback, unless allowed. */
  private checkExposure(cfg: AlertSinkConfig): void {
    if (cfg.bearer_token_file || cfg.basic_auth || isLoopbackAddress(this.deps.listenAddress)) return;
    if (!cfg.allow_unauthenticated) {
      throw new Error(
        `alert_sink: no bearer_token_file or basic_auth, and vigil listens on ${this.deps.listenAddress} (not loopback): anyone who reaches it could post forged alerts; configure credentials, or set alert_sink.allow_unauthenticated: true`,
      );
    }
    this.log.warn({ address: this.deps.listenAddress }, 'alert sink accepts notifications without credentials on a non-loopback address (allow_unauthenticated: true)');
  }

  async stop(): Promise<void> {
    const r = this.running;
    if (!r) return;
    this.running = undefined;
    r.timers.forEach(clearInterval);
    await this.settleRender();
    await r.store.close();
    this.deps.metrics.replace(SINK_GROUP, new Map());
  }

  /** Whether a request goes to the webhook and the sink checks its credentials itself (see HttpGuard). */
  authenticatesItself(req: http.IncomingMessage): boolean {
    const r = this.running;
    return r !== undefined && r.auth.ownCredentials && (req.url === WEBHOOK_PATH || req.url?.startsWith(`${WEBHOOK_PATH}?`) === true);
  }

  private router(cfg: AlertSinkConfig, auth: SinkAuth, store: AlertStore, watchdog: Watchdog): Router {
    this.inFlight.max = cfg.max_in_flight;
    return sinkRouter({
      auth,
      authenticated: this.deps.authenticated ?? (() => false),
      inFlight: this.inFlight,
      bodyLimit: cfg.body_limit,
      limits: { maxDepth: cfg.limits.max_depth, maxAnswerBytes: cfg.limits.max_answer_size },
      store,
      log: this.log,
      receive: (payload, body) => this.receive(store, watchdog, payload, body),
      refused: (reason) => {
        this.rejected.set(reason, (this.rejected.get(reason) ?? 0) + 1);
        this.changed(false);
      },
      pages: this.deps.pages,
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
      { receiver: capText(payload.receiver, 128), status: payload.status, alerts: payload.alerts.length, id: result.id, duplicate: result.duplicate },
      'notification received',
    );
    const r = this.running;
    if (r?.store === store) {
      this.checkWatchdog(r);
      this.changed(true);
    }
    return result;
  }

  /**
   * Something the vigil_alertsink_* series show changed (the store's totals, if `summary`): renders
   * them once, in a later turn, at most once per METRICS_INTERVAL_MS for any number of changes.
   */
  private changed(summary: boolean): void {
    this.dirty = true;
    if (summary) this.summaryStale = true;
    if (this.pending) return;
    const wait = Math.max(0, this.lastRender + METRICS_INTERVAL_MS - performance.now());
    const pending: PendingRender = {};
    pending.timer = setTimeout(() => {
      pending.timer = undefined;
      pending.running = this.render(this.running).finally(() => {
        this.pending = undefined;
        if (this.dirty) this.changed(false);
      });
    }, wait);
    pending.timer.unref();
    this.pending = pending;
  }

  /** Re-reads the totals if they changed, and renders; never rejects. */
  private async render(r: Running | undefined): Promise<void> {
    this.dirty = false;
    this.lastRender = performance.now();
    if (!r || this.running !== r) return;
    try {
      if (this.summaryStale) {
        this.summaryStale = false;
        this.summary = await r.store.summary();
      }
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'cannot read alert sink totals');
    }
    if (this.running === r) this.publish();
  }

  /** Renders a change still waiting for its interval now (tests read their changes at once). */
  async renderPending(): Promise<void> {
    await this.settleRender();
    if (this.dirty) await this.render(this.running);
  }

  /** Cancels a scheduled render and waits for one running (before its store closes). */
  private async settleRender(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    if (p.timer) {
      clearTimeout(p.timer);
      this.pending = undefined;
    }
    await p.running;
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
    this.changed(false);
  }

  private async prune(r: Running): Promise<void> {
    try {
      const pruned = await r.store.prune(this.now() - r.cfg.store.retention);
      if (pruned.notifications + pruned.transitions + pruned.alerts + (pruned.receivers ?? 0) === 0) return;
      this.log.info(pruned, 'pruned alert history past retention');
      if (this.running === r) this.changed(true);
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'cannot prune alert history');
    }
  }

  private publish(): void {
    const r = this.running;
    if (!r) return;
    const w = r.watchdog;
    const lastSeen = w.lastSeenAt();
    const summary = boundSummary(this.summary, { maxValues: r.cfg.limits.max_label_values, maxLength: r.cfg.limits.max_label_length });
    this.deps.metrics.replace(
      SINK_GROUP,
      renderGroup(sinkFamilies, { summary, rejected: this.rejected, store: this.availability, watchdog: { lastSeenSeconds: lastSeen === undefined ? undefined : lastSeen / 1000, healthy: w.isHealthy() } }, {}),
    );
  }
}
