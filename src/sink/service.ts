import type http from 'node:http';
import type { RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import { isLoopbackAddress } from '../config-fields/listen-address.js';
import type { AlertSinkConfig } from '../config-fields/alert-sink.js';
import type { SnapshotStore } from '../metrics/snapshot-store.js';
import { SinkAuth } from './auth.js';
import { SinkExposure, type ExposedSink } from './exposure.js';
import { SinkIntake } from './intake.js';
import { GuardedStore, type StoreAvailability } from './store/guarded-store.js';
import { Pruner } from './pruning.js';
import { startingRouter, WEBHOOK_PATH, type SinkRouteDeps } from './routes.js';
import { storeKind, type StoreKind } from './store/open-store.js';
import type { AlertStore } from './store/alert-store.js';
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

/** A first start: the store opening, then the sink being made the running one. */
interface Starting {
  cfg: AlertSinkConfig;
  kind: StoreKind;
  auth: SinkAuth;
  router: Router;
  store: GuardedStore;
  since: number;
  /** The whole start, as `started()` gives it. */
  started?: Promise<void>;
  /** Once the store has opened (or failed to): the sink being made the running one. */
  settling?: Promise<void>;
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

  /** A first start whose store is still opening: its credentials, and the routes that ask them. */
  private starting?: Starting;

  private running?: Running;
  private startedAt = 0;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly storeKind: (cfg: AlertSinkConfig['store']) => StoreKind;
  private availability: StoreAvailability = { available: true };
  private readonly exposure: SinkExposure;
  private readonly intake: SinkIntake;

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
    this.intake = new SinkIntake({
      log: this.log,
      now: this.now,
      exposure: this.exposure,
      authenticated: deps.authenticated,
      pages: deps.pages,
      stored: (store) => this.stored(store),
    });
  }

  /**
   * Applies a config. The first start resolves at once: its store opens meanwhile (a check of every
   * page of a large file on a slow disk can take minutes), and the collectors never wait for it. A
   * store that cannot be opened at start leaves the sink up but unavailable (503, /readyz says why)
   * while it retries; on a reload, it rejects and keeps the running sink.
   */
  async apply(config: { alert_sink?: AlertSinkConfig | undefined }): Promise<void> {
    const cfg = config.alert_sink;
    // The first store is open and the sink is about to run: this config applies to it.
    await this.starting?.settling;
    if (!cfg?.enabled) return this.stop();
    this.checkExposure(cfg);
    if (!this.running) return this.open(cfg);
    const prev = this.running;
    const kind = this.storeKind(cfg.store);
    const sameStore = prev.identity === kind.identity;
    const store = sameStore ? prev.store : await this.openStore(cfg, kind);
    await this.start(cfg, kind, store, prev, sameStore);
  }

  /** The first start: the sink answers 503 (after its credentials) until the store has opened, or failed to. */
  private open(cfg: AlertSinkConfig): void {
    const kind = this.storeKind(cfg.store);
    const auth = new SinkAuth(cfg);
    const router = startingRouter(this.intake.credentials(auth));
    const s = this.starting;
    // A reload while the same store opens: it goes on opening, for the newest config.
    if (s?.kind.identity === kind.identity) return void Object.assign(s, { cfg, auth, router });
    this.abandon();
    const store = this.guarded(kind);
    const starting: Starting = { cfg, kind, auth, router, store, since: this.now() };
    this.starting = starting;
    starting.started = store.open().then(() => {
      if (this.starting !== starting) return;
      // The Watchdog's silence counts from here: nothing could be received while the store opened.
      this.startedAt = this.now();
      starting.settling = this.start(starting.cfg, kind, store, undefined, false)
        .catch((e: unknown) => {
          this.log.error({ err: (e as Error).message }, 'alert sink cannot start: it stays off until a reload');
          this.starting = undefined;
          return Promise.all([this.stop(), store.close()]).then(() => undefined);
        })
        .finally(() => this.starting === starting && (this.starting = undefined));
      return starting.settling;
    });
  }

  /** Settles once a first start has opened its store (or found it unusable) and the sink runs. */
  started(): Promise<void> {
    return this.starting?.started ?? Promise.resolve();
  }

  /** Drops a first start whose store is still opening: the store is closed once its opening ends, unused. */
  private abandon(): void {
    const s = this.starting;
    this.starting = undefined;
    void s?.store.close();
  }

  private async start(cfg: AlertSinkConfig, kind: StoreKind, store: GuardedStore, prev: Running | undefined, sameStore: boolean): Promise<void> {
    const monitor = await WatchdogMonitor.start(cfg.watchdog, store, this.startedAt, prev?.watchdog, {
      log: this.log,
      now: this.now,
      onChange: () => this.exposure.changed(false),
    });
    if (prev) await this.retire(prev, !sameStore);
    const r = this.begin(cfg, store, kind.identity, monitor);
    if (!sameStore) this.storeChanged(store.availability(), kind);
    await r.pruner.run();
    await this.exposure.publish();
    monitor.check();
    const auth = [cfg.bearer_token_file ? 'bearer' : '', cfg.basic_auth ? 'basic' : ''].filter(Boolean).join('+') || 'none';
    this.log.info({ store: kind.name, retention_days: cfg.store.retention / 86_400_000, auth }, 'alert sink ready');
  }

  /** The new store of a reload; one that cannot be opened is closed again, and the reload refused. */
  private async openStore(cfg: AlertSinkConfig, kind: StoreKind): Promise<GuardedStore> {
    const store = this.guarded(kind);
    const failure = await store.open();
    if (failure) {
      await store.close();
      throw new Error(`alert_sink.store.${cfg.store.postgres ? 'postgres' : 'path'}: cannot open ${kind.name}: ${failure.message}`);
    }
    return store;
  }

  /** A store whose changes count once it is the sink's (starting or running): a reload's store that fails to open is not. */
  private guarded(kind: StoreKind): GuardedStore {
    const store: GuardedStore = new GuardedStore(
      kind,
      (a) => (this.running ?? this.starting)?.store === store && this.storeChanged(a, kind),
      this.deps.reopenMs ?? 5000,
      this.now,
    );
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
    const router = this.intake.router(cfg, auth, store, monitor);
    const r: Running = { cfg, store, identity, watchdog: monitor.watchdog, monitor, pruner, router, auth, timers: [monitor.timer(), pruner.timer()] };
    this.running = r;
    return r;
  }

  /** Not ready while the store cannot be used: a load balancer then sends notifications elsewhere. */
  readiness(): { ready: boolean; reason?: string } {
    const s = this.starting;
    if (s)
      return { ready: false, reason: `alert_sink: store opening for ${Math.round((this.now() - s.since) / 1000)} s: the webhook answers 503 until it is open` };
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
    // Once its store is open a first start is let finish, and stopped as any sink.
    await this.starting?.settling;
    this.abandon();
    const r = this.running;
    if (!r) return;
    this.running = undefined;
    r.timers.forEach(clearInterval);
    await this.exposure.settle();
    await r.store.close();
    this.exposure.clear();
  }

  /**
   * Whether a request goes to the webhook and the sink checks its credentials itself (see
   * HttpGuard). The guard sees the path as sent, under `--web.route-prefix` when there is one.
   */
  authenticatesItself(req: http.IncomingMessage, routePrefix = '/'): boolean {
    const auth = (this.running ?? this.starting)?.auth;
    const path = routePrefix === '/' ? WEBHOOK_PATH : `${routePrefix}${WEBHOOK_PATH}`;
    return auth !== undefined && auth.ownCredentials && (req.url === path || req.url?.startsWith(`${path}?`) === true);
  }

  /** Renders a change still waiting for its interval now (tests read their changes at once). */
  renderPending(): Promise<void> {
    return this.exposure.flush();
  }

  /** A notification was stored: if in the running sink's store, its Watchdog and series follow. */
  private stored(store: AlertStore): void {
    const r = this.running;
    if (r?.store !== store) return;
    r.monitor.check();
    this.exposure.changed(true);
  }
}
