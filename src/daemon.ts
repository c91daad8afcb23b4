import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { CollectionEngine, type Engine } from './engine/collection-engine.js';
import type { BodySource } from './engine/body.js';
import { CollectionThread } from './engine/thread.js';
import type { Config } from './config/schema.js';
import { resolveShard, shardLayout, type ShardFlags, type ShardLayout } from './config/sharding.js';
import type { LogFormat, LogLevel } from './support/logger.js';
import { COLLECTION_FAMILIES, DAEMON_FAMILIES } from './catalog.js';
import { renderGroup } from './metrics/render.js';
import { SnapshotStore, type ExpositionFormat, type Snapshot } from './metrics/snapshot-store.js';
import { shardFamilies } from './metrics/shard-families.js';
import { daemonFamilies, type DaemonStats } from './metrics/daemon-families.js';
import { BRANCH, REVISION, VERSION } from './version.js';

export type { TargetView } from './engine/collection-engine.js';

const LOOP_RESOLUTION_MS = 10;

/** Something besides the collectors that follows the loaded config (the alert sink). */
export interface Component {
  /**
   * Applies a config; rejecting leaves the component on its previous one and fails the (re)load.
   * The jobs start after it: work that may take long (opening a store) goes on once it resolved,
   * and `readiness` says so meanwhile.
   */
  apply(config: Config): Promise<void>;
  stop(): Promise<void>;
  /** Not ready (with why) when the component cannot do its work now; collectors are unaffected. */
  readiness?(): { ready: boolean; reason?: string };
}

/** What one on-demand run of every job cost, for operators and the benchmark (`POST /-/collect`). */
export interface CollectSummary {
  jobs: number;
  /** Jobs whose run left at least one part failed. */
  failed_jobs: number;
  wall_seconds: number;
  /** CPU time of the whole process (user + system) while the jobs ran, scrapes served meanwhile included. */
  cpu_seconds: number;
  /** Upstream requests sent meanwhile (attempts, retries included). */
  upstream_requests: number;
  /** How late the event loop ran while the jobs ran: what a scrape issued meanwhile may wait at most. */
  event_loop_delay_max_seconds: number;
  series: number;
}

export interface DaemonOptions {
  /**
   * Runs the collection in a thread of its own (vigil's default): decoding, checking and rendering
   * answers then never holds the event loop that answers scrapes. Tests that look inside one
   * process keep it in the main thread.
   */
  collectionThread?: { level: LogLevel; format: LogFormat; out?: NodeJS.WritableStream };
  /** The shard flags; the config's `sharding:` block is the fallback. */
  shard?: ShardFlags;
}

/**
 * Wires one loaded config to the collection engine and the components (the alert sink), and swaps
 * it for a new one on reload. Serves /metrics the collection's body (laid out where the collection
 * runs, in the main thread or in its own) followed by the main thread's own series (`store`).
 */
export class Daemon {
  /** The series the main thread renders (the alert sink's, the HTTP server's, the daemon's own). */
  readonly store = new SnapshotStore(DAEMON_FAMILIES);
  private readonly engine: Engine;
  /** The collection's body, laid out where the collection runs. */
  private readonly collected: BodySource;
  /** The last body served in each format: the collection's, then the main thread's series. */
  private readonly served: Partial<Record<ExpositionFormat, { head: Snapshot; tail: Snapshot; body: Snapshot }>> = {};
  private readonly daemonStats: DaemonStats = { version: VERSION, revision: REVISION, branch: BRANCH, lastReloadOk: true, lastReloadSuccessSeconds: 0 };
  private config_?: Config;
  private reloading: Promise<void> = Promise.resolve();
  /** A reload asked for while another runs: later asks join it (it reads the newest file anyway). */
  private queuedReload?: Promise<void> | undefined;
  private readonly components: Component[] = [];
  private readonly shardFlags: ShardFlags;

  constructor(
    private readonly log: Logger,
    opts: DaemonOptions = {},
  ) {
    this.shardFlags = opts.shard ?? {};
    const t = opts.collectionThread;
    if (t) {
      const thread = new CollectionThread(log, { level: t.level, format: t.format }, t.out);
      this.engine = thread;
      this.collected = thread;
    } else {
      const store = new SnapshotStore(COLLECTION_FAMILIES);
      this.engine = new CollectionEngine(store, log);
      this.collected = store;
    }
  }

  get config(): Config | undefined {
    return this.config_;
  }

  /** Adds a component; it gets every config applied from now on, and stops with the daemon. */
  use(component: Component): void {
    this.components.push(component);
  }

  /** Starts with a config, or replaces the running one (jobs of removed targets and their series go). */
  async apply(config: Config): Promise<void> {
    const layout = this.layout(config);
    await this.applyComponents(config);
    await this.applyJobs(config, layout);
  }

  /** This replica's shard of the config's targets; a shard that cannot be told rejects the config. */
  private layout(config: Config): ShardLayout {
    const layout = shardLayout(config, resolveShard(this.shardFlags, config.sharding));
    const { ordinal, total } = layout.shard;
    if (total > 1)
      this.log.info(
        { shard: ordinal, total_shards: total, targets: layout.targets[ordinal], of: layout.targets.reduce((a, b) => a + b, 0) },
        'polling one shard of the targets',
      );
    return layout;
  }

  private async applyComponents(config: Config): Promise<void> {
    for (const c of this.components) await c.apply(config);
  }

  private async applyJobs(config: Config, layout: ShardLayout): Promise<void> {
    await this.engine.applyJobs(layout.owned);
    this.store.replace('vigil/shard', renderGroup(shardFamilies, layout, {}));
    this.config_ = config;
    this.daemonStats.lastReloadOk = true;
    this.daemonStats.lastReloadSuccessSeconds = Date.now() / 1000;
    this.publishDaemon();
  }

  /**
   * Loads a new config and applies it; a config that fails to load is logged and rejected, and the
   * running one keeps going. Reloads are serialized, and coalesced: any number asked for while one
   * runs make one more (with `load` of the first of them), not one each.
   */
  reload(load: () => Promise<Config>): Promise<void> {
    if (this.queuedReload) return this.queuedReload;
    const next = this.reloading.then(async () => {
      this.queuedReload = undefined;
      let config: Config;
      let layout: ShardLayout;
      try {
        config = await load();
        layout = this.layout(config);
        await this.applyComponents(config);
      } catch (e) {
        this.daemonStats.lastReloadOk = false;
        this.publishDaemon();
        this.log.error({ err: (e as Error).message }, 'new configuration rejected; the previous one keeps running');
        throw e;
      }
      await this.applyJobs(config, layout);
    });
    this.queuedReload = next;
    this.reloading = next.catch(() => undefined);
    return next;
  }

  /**
   * Ready once a config is loaded, every job of it has run at least once, and every component can
   * do its work. What a component lacks is said from the start, config loaded or not: the fix for
   * an unwritable store directory shows before the first collection.
   */
  readiness(): { ready: boolean; pending: string[]; unavailable?: string[] } {
    const jobs = this.engine.pending();
    const pending = jobs ?? ['configuration'];
    const unavailable = this.components.flatMap((c) => {
      const r = c.readiness?.();
      return r && !r.ready ? [r.reason ?? 'unavailable'] : [];
    });
    return { ready: jobs !== undefined && jobs.length === 0 && unavailable.length === 0, pending, ...(unavailable.length ? { unavailable } : {}) };
  }

  /** The body /metrics serves: the collection's series, then the main thread's (their families are the catalog's tail). */
  snapshot(format: ExpositionFormat = 'text'): Snapshot {
    const head = this.collected.snapshot(format);
    const tail = this.store.snapshot(format);
    const last = this.served[format];
    if (last?.head === head && last.tail === tail) return last.body;
    const body = head.followedBy(tail);
    this.served[format] = { head, tail, body };
    return body;
  }

  targets(): ReturnType<Engine['targets']> {
    return this.engine.targets();
  }

  /**
   * Runs every job now (joining runs in flight) and waits for all; says what it cost. Unless
   * `force`d (tests drive collections so), a costly job runs only once its minimum interval passed.
   * The loop delay is this thread's: the one that answers scrapes.
   */
  async collectNow(opts: { force?: boolean } = {}): Promise<CollectSummary> {
    const delay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    delay.enable();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const ran = await this.engine.collectNow(opts);
    const wall = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    delay.disable();
    return {
      ...ran,
      wall_seconds: wall,
      cpu_seconds: (user + system) / 1e6,
      // The histogram records whole timer intervals: what exceeds the interval is the delay.
      event_loop_delay_max_seconds: delay.count ? Math.max(0, delay.max / 1e9 - LOOP_RESOLUTION_MS / 1000) : 0,
      series: this.snapshot().series,
    };
  }

  async stop(): Promise<void> {
    await this.reloading;
    await Promise.all(this.components.map((c) => c.stop()));
    await this.engine.stop();
  }

  private publishDaemon(): void {
    this.store.replace('vigil/daemon', renderGroup(daemonFamilies, this.daemonStats, {}));
  }
}
