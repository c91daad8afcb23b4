import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Job } from './collectors/collection.js';
import { WalLagTracker, walLagFamily } from './collectors/secrets-wal-lag.js';
import type { Config } from './config/schema.js';
import { CATALOG } from './metrics/catalog.js';
import { renderGroup } from './metrics/render.js';
import { SnapshotStore, type ExpositionFormat, type Snapshot } from './metrics/snapshot-store.js';
import {
  daemonFamilies,
  jobFamilies,
  newJobStats,
  type DaemonStats,
  type JobStats,
  type UpstreamStats,
} from './metrics/telemetry.js';
import { makeExecute } from './scheduler/execute.js';
import { Scheduler, scheduleIntervalSeconds } from './scheduler/scheduler.js';
import { Turns } from './scheduler/turns.js';
import { OffloadPool } from './offload/pool.js';
import { runsAtReload, runsOnDemand } from './scheduler/run-policy.js';
import { buildJobs, targetConfigs } from './targets/build.js';
import { publishUpstreamStats, type BuildContext } from './targets/context.js';
import { WAL_LAG_GROUP } from './targets/secrets.js';
import type { UpstreamClient } from './upstream/client.js';
import { REVISION, VERSION } from './version.js';

const LOOP_RESOLUTION_MS = 10;
const jobKey = (j: Pick<Job, 'collector' | 'target'>) => `${j.collector}/${j.target}`;
const statsGroup = (key: string) => `vigil/job/${key}`;

export interface TargetView {
  collector: string;
  target: string;
  schedule: string;
  up: boolean | null;
  runs: number;
  lastRun: string | null;
  lastSuccess: string | null;
  lastDurationSeconds: number | null;
  lastError: { reason: string; message: string; part: string } | null;
}

/** Something besides the collectors that follows the loaded config (the alert sink). */
export interface Component {
  /** Applies a config; rejecting leaves the component on its previous one and fails the (re)load. */
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

interface Loaded {
  config: Config;
  jobs: Job[];
  scheduler: Scheduler;
  clients: UpstreamClient[];
}

/**
 * Wires one loaded config to the scheduler, the store and the collectors' telemetry, and swaps it
 * for a new one on reload. Owns the only mutable state of the process (through the store).
 */
export class Daemon {
  readonly store = new SnapshotStore(CATALOG);
  private readonly jobStats = new Map<string, JobStats>();
  private readonly upstreamStats = new Map<string, UpstreamStats>();
  private readonly walLag = new WalLagTracker();
  private readonly turns = new Turns();
  /** Worker threads for big answers; started on first use, kept across reloads. */
  private readonly offload = new OffloadPool();
  private readonly ranOnce = new Set<string>();
  private readonly daemonStats: DaemonStats = { version: VERSION, revision: REVISION, lastReloadOk: true, lastReloadSuccessSeconds: 0 };
  private loaded?: Loaded;
  private reloading: Promise<void> = Promise.resolve();
  /** A reload asked for while another runs: later asks join it (it reads the newest file anyway). */
  private queuedReload?: Promise<void> | undefined;
  private targetConfigs = new Map<string, string>();
  private readonly components: Component[] = [];

  constructor(private readonly log: Logger) {}

  get config(): Config | undefined {
    return this.loaded?.config;
  }

  /** Adds a component; it gets every config applied from now on, and stops with the daemon. */
  use(component: Component): void {
    this.components.push(component);
  }

  /** Starts with a config, or replaces the running one (jobs of removed targets and their series go). */
  async apply(config: Config): Promise<void> {
    await this.applyComponents(config);
    await this.applyJobs(config);
  }

  private async applyComponents(config: Config): Promise<void> {
    for (const c of this.components) await c.apply(config);
  }

  private async applyJobs(config: Config): Promise<void> {
    const ctx: BuildContext = {
      store: this.store,
      log: this.log,
      upstreamStats: this.upstreamStats,
      upstreamKeys: new Set(),
      clients: [],
      spacers: new Map(),
      unpublished: new Map(),
      turns: this.turns,
      offload: this.offload,
    };

    const jobs = buildJobs(config, ctx, this.walLag);
    const previous = this.loaded;
    if (previous) {
      await previous.scheduler.stop();
      await Promise.all(previous.clients.map((c) => c.close()));
    }
    this.forgetRemoved(jobs, ctx.upstreamKeys);
    for (const job of jobs) {
      const key = jobKey(job);
      const interval = scheduleIntervalSeconds(job.schedule);
      const s = this.jobStats.get(key) ?? newJobStats(job.collector, job.target, interval);
      s.intervalSeconds = interval;
      this.jobStats.set(key, s);
      this.publishStats(job);
    }
    const execute = makeExecute({
      store: this.store,
      turns: this.turns,
      log: this.log,
      stats: (job) => this.statsOf(job),
      publishStats: (job) => {
        this.ranOnce.add(jobKey(job));
        this.publishStats(job);
        publishUpstreamStats(ctx);
      },
    });
    const scheduler = new Scheduler(jobs, execute, (job) => {
      this.statsOf(job).skipped += 1;
      this.publishStats(job);
      this.log.warn({ collector: job.collector, target: job.target }, 'previous run still going: scheduled run skipped');
    });
    const previousTargets = this.targetConfigs;
    this.targetConfigs = targetConfigs(config);
    const nowSeconds = Date.now() / 1000;
    const runNow = (job: Job) =>
      runsAtReload(this.jobStats.get(jobKey(job)), previousTargets.get(job.target) !== this.targetConfigs.get(job.target), nowSeconds);
    this.loaded = { config, jobs, scheduler, clients: ctx.clients };
    this.daemonStats.lastReloadOk = true;
    this.daemonStats.lastReloadSuccessSeconds = Date.now() / 1000;
    this.publishDaemon();
    scheduler.start(runNow);
    this.log.info({ jobs: jobs.length, targets: new Set(jobs.map((j) => j.target)).size }, 'configuration loaded');
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
      try {
        config = await load();
        await this.applyComponents(config);
      } catch (e) {
        this.daemonStats.lastReloadOk = false;
        this.publishDaemon();
        this.log.error({ err: (e as Error).message }, 'new configuration rejected; the previous one keeps running');
        throw e;
      }
      await this.applyJobs(config);
    });
    this.queuedReload = next;
    this.reloading = next.catch(() => undefined);
    return next;
  }

  /** Ready once a config is loaded and every job of it has run at least once. */
  readiness(): { ready: boolean; pending: string[]; unavailable?: string[] } {
    if (!this.loaded) return { ready: false, pending: ['configuration'] };
    const pending = this.loaded.jobs.map(jobKey).filter((k) => !this.ranOnce.has(k));
    const unavailable = this.components.flatMap((c) => {
      const r = c.readiness?.();
      return r && !r.ready ? [r.reason ?? 'unavailable'] : [];
    });
    return { ready: pending.length === 0 && unavailable.length === 0, pending, ...(unavailable.length ? { unavailable } : {}) };
  }

  snapshot(format: ExpositionFormat = 'text'): Snapshot {
    return this.store.snapshot(format);
  }

  targets(): TargetView[] {
    return (this.loaded?.jobs ?? []).map((job) => {
      const s = this.statsOf(job);
      const iso = (secs?: number) => (secs === undefined ? null : new Date(secs * 1000).toISOString());
      return {
        collector: job.collector,
        target: job.target,
        schedule: job.schedule,
        up: s.up ?? null,
        runs: s.runs,
        lastRun: iso(s.lastRunSeconds),
        lastSuccess: iso(s.lastSuccessSeconds),
        lastDurationSeconds: s.lastDurationSeconds ?? null,
        lastError: s.lastError ?? null,
      };
    });
  }

  /**
   * Runs every job now (joining runs in flight) and waits for all; says what it cost. Unless
   * `force`d (tests drive collections so), a costly job runs only once its minimum interval passed.
   */
  async collectNow(opts: { force?: boolean } = {}): Promise<CollectSummary> {
    const requestsBefore = this.upstreamRequests();
    const delay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    delay.enable();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const nowSeconds = Date.now() / 1000;
    await this.loaded?.scheduler.runAll((job) => opts.force === true || runsOnDemand(job, this.jobStats.get(jobKey(job)), nowSeconds));
    const wall = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    delay.disable();
    const jobs = this.loaded?.jobs ?? [];
    return {
      jobs: jobs.length,
      failed_jobs: jobs.filter((j) => this.statsOf(j).up === false).length,
      wall_seconds: wall,
      cpu_seconds: (user + system) / 1e6,
      upstream_requests: this.upstreamRequests() - requestsBefore,
      // The histogram records whole timer intervals: what exceeds the interval is the delay.
      event_loop_delay_max_seconds: delay.count ? Math.max(0, delay.max / 1e9 - LOOP_RESOLUTION_MS / 1000) : 0,
      series: this.store.snapshot().series,
    };
  }

  async stop(): Promise<void> {
    await this.reloading;
    await Promise.all(this.components.map((c) => c.stop()));
    if (!this.loaded) return;
    await this.loaded.scheduler.stop();
    await Promise.all(this.loaded.clients.map((c) => c.close()));
    await this.offload.close();
  }

  private upstreamRequests(): number {
    let n = 0;
    for (const s of this.upstreamStats.values()) for (const h of s.latency.values()) n += h.count;
    return n;
  }

  private statsOf(job: Job): JobStats {
    const key = jobKey(job);
    let s = this.jobStats.get(key);
    if (!s) this.jobStats.set(key, (s = newJobStats(job.collector, job.target, scheduleIntervalSeconds(job.schedule))));
    return s;
  }

  private publishStats(job: Job): void {
    this.store.replace(statsGroup(jobKey(job)), renderGroup(jobFamilies, this.statsOf(job), { collector: job.collector, target: job.target }));
  }

  private publishDaemon(): void {
    this.store.replace('vigil/daemon', renderGroup(daemonFamilies, this.daemonStats, {}));
  }

  /** Drops series, stats and derived state of jobs and targets the new config no longer has. */
  private forgetRemoved(jobs: readonly Job[], liveUpstream: ReadonlySet<string>): void {
    const keep = new Set(jobs.map(jobKey));
    for (const key of [...this.jobStats.keys()]) {
      if (keep.has(key)) continue;
      this.jobStats.delete(key);
      this.ranOnce.delete(key);
      this.store.removePrefix(`${key}/`);
      this.store.removePrefix(statsGroup(key));
    }
    for (const key of [...this.upstreamStats.keys()]) {
      if (liveUpstream.has(key)) continue;
      this.upstreamStats.delete(key);
      this.store.removePrefix(key);
    }
    this.walLag.forgetTargetsExcept(new Set(jobs.filter((j) => j.collector === 'secrets_replication').map((j) => j.target)));
    this.store.replace(WAL_LAG_GROUP, renderGroup([walLagFamily], this.walLag.pairs(), {}));
  }
}
