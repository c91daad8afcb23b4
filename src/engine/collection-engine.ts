import type { Logger } from 'pino';
import type { Job } from '../jobs/part.js';
import type { Config } from '../config/schema.js';
import { renderGroup } from '../metrics/render.js';
import type { GroupWriter } from '../metrics/render.js';
import { jobFamilies, newJobStats, type JobStats } from '../telemetry/job-stats.js';
import type { UpstreamStats } from '../telemetry/upstream-stats.js';
import { makeExecute } from './commit-run.js';
import { runsAtReload, runsOnDemand } from './run-policy.js';
import { CronRunner } from './cron.js';
import { scheduleIntervalSeconds } from '../config-fields/schedule.js';
import { Turns } from '../support/turns.js';
import { buildJobs, collectorStates, settleStates, targetConfigs } from '../collectors/index.js';
import { collectionOffloadPool } from '../collectors/decoding.js';
import { answersInFlight } from '../jobs/answers-in-flight.js';
import { publishUpstreamStats, type BuildContext } from '../jobs/context.js';
import type { UpstreamClient } from '../upstream/client.js';

const jobKey = (j: Pick<Job, 'collector' | 'target'>) => `${j.collector}/${j.target}`;

/** Each key's first job, as a search of the list in order finds it. */
function firstByKey(jobs: readonly Job[]): Map<string, Job> {
  const byKey = new Map<string, Job>();
  for (const j of jobs) if (!byKey.has(jobKey(j))) byKey.set(jobKey(j), j);
  return byKey;
}
const statsGroup = (key: string) => `vigil/job/${key}`;

/** One job of one target as the status page and `/api/v1/targets` show it: its schedule, its last run and, while it fails, the failure its target shows. */
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

/** What one on-demand run of every job did, as the engine sees it (the daemon adds what it costs). */
export interface EngineCollect {
  jobs: number;
  failed_jobs: number;
  upstream_requests: number;
}

/** The collection side of vigil, wherever it runs: in the main thread, or in a thread of its own. */
export interface Engine {
  /** Starts with a config, or replaces the running one (jobs of removed targets and their series go). */
  applyJobs(config: Config): Promise<void>;
  collectNow(opts: { force?: boolean }): Promise<EngineCollect>;
  targets(): TargetView[];
  /** Jobs that have not run once yet; undefined before the first config. */
  pending(): string[] | undefined;
  stop(): Promise<void>;
}

interface Loaded {
  jobs: Job[];
  /** The jobs by key: a view is asked for each job as it finishes, thousands a collection at a million series. */
  byKey: ReadonlyMap<string, Job>;
  cron: CronRunner;
  clients: UpstreamClient[];
}

/**
 * The cron runner, the jobs and their telemetry for one loaded config at a time, swapped on
 * reload; everything they render goes to the store (a `GroupWriter`). `onChange` hears of every change of what
 * `targets()` and `pending()` say: of one job's view by its key, of all of them (a new config) by
 * `undefined`.
 */
export class CollectionEngine implements Engine {
  private readonly jobStats = new Map<string, JobStats>();
  private readonly upstreamStats = new Map<string, UpstreamStats>();
  /** What each collector derives across its targets, kept across reloads. */
  private readonly states = collectorStates();
  private readonly turns = new Turns();
  private readonly answers = answersInFlight();
  /** Worker threads for big answers; started on first use, kept across reloads. */
  private readonly offload = collectionOffloadPool();
  private readonly ranOnce = new Set<string>();
  private loaded?: Loaded;
  private targetConfigs = new Map<string, string>();

  constructor(
    private readonly store: GroupWriter,
    private readonly log: Logger,
    private readonly onChange: (jobKey?: string) => void = () => undefined,
  ) {}

  async applyJobs(config: Config): Promise<void> {
    const ctx: BuildContext = {
      store: this.store,
      log: this.log,
      upstreamStats: this.upstreamStats,
      upstreamKeys: new Set(),
      clients: [],
      spacers: new Map(),
      unpublished: new Map(),
      turns: this.turns,
      answers: this.answers,
      offload: this.offload,
    };

    const jobs = buildJobs(config, ctx, this.states);
    const previous = this.loaded;
    if (previous) {
      await previous.cron.stop();
      await Promise.all(previous.clients.map((c) => c.close()));
    }
    this.forgetRemoved(jobs, ctx.upstreamKeys);
    settleStates(config, this.store, this.states);
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
        publishUpstreamStats(ctx, job.target);
      },
    });
    const cron = new CronRunner(jobs, execute, (job) => {
      this.statsOf(job).skipped += 1;
      this.publishStats(job);
      this.log.warn({ collector: job.collector, target: job.target }, 'previous run still going: scheduled run skipped');
    });
    const previousTargets = this.targetConfigs;
    this.targetConfigs = targetConfigs(config);
    const nowSeconds = Date.now() / 1000;
    const runNow = (job: Job) =>
      runsAtReload(this.jobStats.get(jobKey(job)), previousTargets.get(job.target) !== this.targetConfigs.get(job.target), nowSeconds);
    this.loaded = { jobs, byKey: firstByKey(jobs), cron, clients: ctx.clients };
    this.onChange();
    cron.start(runNow);
    this.log.info({ jobs: jobs.length, targets: new Set(jobs.map((j) => j.target)).size }, 'configuration loaded');
  }

  pending(): string[] | undefined {
    return this.loaded?.jobs.map(jobKey).filter((k) => !this.ranOnce.has(k));
  }

  targets(): TargetView[] {
    return (this.loaded?.jobs ?? []).map((job) => this.viewOf(job));
  }

  /** The view of one job of the loaded config, by its key (`collector/target`). */
  target(key: string): TargetView | undefined {
    const job = this.loaded?.byKey.get(key);
    return job && this.viewOf(job);
  }

  private viewOf(job: Job): TargetView {
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
  }

  /**
   * Runs every job now (joining runs in flight) and waits for all. Unless `force`d (tests drive
   * collections so), a costly job runs only once its minimum interval passed.
   */
  async collectNow(opts: { force?: boolean } = {}): Promise<EngineCollect> {
    const requestsBefore = this.upstreamRequests();
    const nowSeconds = Date.now() / 1000;
    await this.loaded?.cron.runAll((job) => opts.force === true || runsOnDemand(job, this.jobStats.get(jobKey(job)), nowSeconds));
    const jobs = this.loaded?.jobs ?? [];
    return {
      jobs: jobs.length,
      failed_jobs: jobs.filter((j) => this.statsOf(j).up === false).length,
      upstream_requests: this.upstreamRequests() - requestsBefore,
    };
  }

  async stop(): Promise<void> {
    if (this.loaded) {
      await this.loaded.cron.stop();
      await Promise.all(this.loaded.clients.map((c) => c.close()));
    }
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
    this.onChange(jobKey(job));
  }

  /** Drops series and stats of jobs and targets the new config no longer has. */
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
  }
}
