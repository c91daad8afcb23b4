import type http from 'node:http';
import type { RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import { isLoopbackAddress } from '../config/listen-address.js';
import type { AlertSinkConfig } from '../config/alert-sink.js';
import type { SnapshotStore } from '../metrics/snapshot-store.js';
import { capText } from '../support/cap-text.js';
import { SinkAuth } from './auth.js';
import { SinkExposure, type ExposedSink } from './exposure.js';
import { IntakeBudget } from './intake-budget.js';
import { GuardedStore, type StoreAvailability } from './store/guarded-store.js';
import type { Payload } from './payload-schema.js';
import { Pruner } from './pruning.js';
import { sinkRouter, startingRouter, WEBHOOK_PATH, type SinkCredentialDeps, type SinkRouteDeps } from './routes.js';
import { storeKind, type StoreKind } from './store/open-store.js';
import { notificationKey, type AlertStore, type RecordResult } from './store/alert-store.js';
import { WatchdogMonitor } from './watchdog-monitor.js';

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

interface Running extends ExposedSink {
  store: GuardedStore;
  identity: string;
  monitor: WatchdogMonitor;
  pruner: Pruner;
  router: Router;
  auth: SinkAuth;
  timers: NodeJS.Timeout[];
}

/**
 * The webhook alert sink's lifecycle: follows the config (on, off, reconfigured on reload: a new
 * store path or max_size reopens the store, other keys apply in place), owns the store, and starts
 * the Watchdog monitor (watchdog-monitor.ts), retention (pruning.ts) and the vigil_alertsink_*
 * series (exposure.ts) of each running sink.
 */
export class AlertSinkService {
  /**
   * Mount once; routes to the running sink, or on (404) while the sink is off. While it starts
   * (its store opening), its credentials are asked as ever, then a notification is answered 503:
   * Alertmanager retries that, not a 404.
   */
  readonly routes: RequestHandler = (req, res, next) => {
    const router = (this.running ?? this.starting)?.router;
    if (router) return router(req, res, next);
    next();
  };

  /** While a first apply is under way (no sink running yet): its credentials, and the routes that ask them. */
  private starting?: { auth: SinkAuth; router: Router };

  private running?: Running;
  private startedAt = 0;
  /** One budget across reloads, so a reload does not let twice the bound in. */
  private readonly budget = new IntakeBudget(1, 0);
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly storeKind: (cfg: AlertSinkConfig['store']) => StoreKind;
  private availability: StoreAvailability = { available: true };
  private readonly exposure: SinkExposure;

  constructor(private readonly deps: AlertSinkDeps) {
    this.log = deps.log.child({ component: 'alertsink' });
    this.now = deps.now ?? Date.now;
    this.storeKind = deps.storeKind ?? storeKind;
    this.exposure = new SinkExposure(
      deps.metrics,
      this.log,
      () => this.running,
      () => this.availability,
    );
  }

  /**
   * Applies a config. A store that cannot be opened at start leaves the sink up but unavailable
   * (503, /readyz says why) while it retries; on a reload, it rejects and keeps the running sink.
   */
  async apply(config: { alert_sink?: AlertSinkConfig | undefined }): Promise<void> {
    const cfg = config.alert_sink;
    if (!cfg?.enabled) return this.stop();
    if (!this.running) {
      const auth = new SinkAuth(cfg);
      this.starting = { auth, router: startingRouter(this.credentials(auth)) };
    }
    try {
      await this.start(cfg);
    } finally {
      this.starting = undefined;
    }
  }

  private async start(cfg: AlertSinkConfig): Promise<void> {
    this.checkExposure(cfg);
    const prev = this.running;
    const kind = this.storeKind(cfg.store);
    const sameStore = prev !== undefined && prev.identity === kind.identity;
    const store = sameStore ? prev.store : await this.openStore(cfg, kind, prev !== undefined);
    if (!prev) this.startedAt = this.now();
    const monitor = await WatchdogMonitor.start(cfg.watchdog, store, this.startedAt, prev?.watchdog, {
      log: this.log,
      now: this.now,
      onChange: () => this.exposure.changed(false),
    });
    if (prev) await this.retire(prev, !sameStore);
    const r = this.begin(cfg, store, kind.identity, monitor);
    await r.pruner.run();
    await this.exposure.publish();
    monitor.check();
    const auth = [cfg.bearer_token_file ? 'bearer' : '', cfg.basic_auth ? 'basic' : ''].filter(Boolean).join('+') || 'none';
    this.log.info({ store: kind.name, retention_days: cfg.store.retention / 86_400_000, auth }, 'alert sink ready');
  }

  /** A new store; one that cannot be opened on a reload is closed again, and the reload refused. */
  private async openStore(cfg: AlertSinkConfig, kind: StoreKind, reload: boolean): Promise<GuardedStore> {
    const store = new GuardedStore(kind, (a) => this.storeChanged(a, kind), this.deps.reopenMs ?? 5000, this.now);
    const failure = await store.open();
    if (failure && reload) {
      await store.close();
      throw new Error(`alert_sink.store.${cfg.store.postgres ? 'postgres' : 'path'}: cannot open ${kind.name}: ${failure.message}`);
    }
    return store;
  }

  /** Stops the timers of a sink being replaced, and closes its store unless the new one keeps it. */
  private async retire(prev: Running, closeStore: boolean): Promise<void> {
    prev.timers.forEach(clearInterval);
    if (!closeStore) return;
    await this.exposure.settle();
    await prev.store.close();
  }

  /** Makes a sink the running one: its routes, its Watchdog and retention timers. */
  private begin(cfg: AlertSinkConfig, store: GuardedStore, identity: string, monitor: WatchdogMonitor): Running {
    const auth = new SinkAuth(cfg);
    const pruner = new Pruner(store, cfg.store, { log: this.log, now: this.now, onPruned: () => this.running === r && this.exposure.changed(true) });
    const router = this.router(cfg, auth, store, monitor);
    const r: Running = { cfg, store, identity, watchdog: monitor.watchdog, monitor, pruner, router, auth, timers: [monitor.timer(), pruner.timer()] };
    this.running = r;
    return r;
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
    if (!a.available && (was.available || was.reason !== a.reason))
      this.log.error({ store: kind.name, reason: a.reason, err: a.message }, 'alert store unavailable: the webhook answers 503 until it returns');
    this.exposure.changed(this.running !== undefined && a.available);
  }

  /** Anyone who reaches an unauthenticated sink can forge a Watchdog: only on loopback, unless allowed. */
  private checkExposure(cfg: AlertSinkConfig): void {
    if (cfg.bearer_token_file || cfg.basic_auth || isLoopbackAddress(this.deps.listenAddress)) return;
    if (!cfg.allow_unauthenticated) {
      throw new Error(
        `alert_sink: no bearer_token_file or basic_auth, and vigil listens on ${this.deps.listenAddress} (not loopback): anyone who reaches it could post forged alerts; configure credentials, or set alert_sink.allow_unauthenticated: true`,
      );
    }
    this.log.warn(
      { address: this.deps.listenAddress },
      'alert sink accepts notifications without credentials on a non-loopback address (allow_unauthenticated: true)',
    );
  }

  async stop(): Promise<void> {
    const r = this.running;
    if (!r) return;
    this.running = undefined;
    r.timers.forEach(clearInterval);
    await this.exposure.settle();
    await r.store.close();
    this.exposure.clear();
  }

  /** Whether a request goes to the webhook and the sink checks its credentials itself (see HttpGuard). */
  authenticatesItself(req: http.IncomingMessage): boolean {
    const auth = (this.running ?? this.starting)?.auth;
    return auth !== undefined && auth.ownCredentials && (req.url === WEBHOOK_PATH || req.url?.startsWith(`${WEBHOOK_PATH}?`) === true);
  }

  /** Renders a change still waiting for its interval now (tests read their changes at once). */
  renderPending(): Promise<void> {
    return this.exposure.flush();
  }

  private router(cfg: AlertSinkConfig, auth: SinkAuth, store: AlertStore, monitor: WatchdogMonitor): Router {
    this.budget.maxCount = cfg.max_in_flight;
    this.budget.maxBytes = cfg.max_in_flight_size;
    return sinkRouter({
      ...this.credentials(auth),
      budget: this.budget,
      bodyLimit: cfg.body_limit,
      limits: { maxDepth: cfg.limits.max_depth, maxAnswerBytes: cfg.limits.max_answer_size },
      store,
      receive: (payload, body, gone) => this.receive(store, monitor, payload, body, gone),
      folded: (counts) => this.exposure.folded(counts),
      pages: this.deps.pages,
      health: () => monitor.health(),
    });
  }

  private credentials(auth: SinkAuth): SinkCredentialDeps {
    return { auth, authenticated: this.deps.authenticated ?? (() => false), log: this.log, refused: (reason) => this.exposure.refused(reason) };
  }

  private async receive(store: AlertStore, monitor: WatchdogMonitor, payload: Payload, body: string, gone: AbortSignal): Promise<RecordResult> {
    const receivedAt = this.now();
    const result = await store.record({ key: notificationKey(payload), receivedAt, payload, body }, gone);
    monitor.received(payload, receivedAt);
    this.log.debug(
      { receiver: capText(payload.receiver, 128), status: payload.status, alerts: payload.alerts.length, id: result.id, duplicate: result.duplicate },
      'notification received',
    );
    const r = this.running;
    if (r?.store === store) {
      r.monitor.check();
      this.exposure.changed(true);
    }
    return result;
  }
}
