import cron, { type ScheduledTask } from 'node-cron';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Job } from '../jobs/part.js';

export type Execute = (job: Job, signal: AbortSignal) => Promise<void>;

/**
 * One node-cron task per job. A job never overlaps its own previous run: a tick that finds it still
 * running is skipped and reported. Every job also runs once right at start, so a fresh daemon has
 * data (and turns ready) without waiting a whole schedule.
 */
export class CronRunner {
  private readonly tasks: ScheduledTask[] = [];
  private readonly running = new Map<Job, Promise<void>>();
  /**
   * One controller per run in flight, aborted one by one on stop. A single signal shared by every
   * run would collect an abort listener per request in flight across all targets (the upstream
   * client's per-attempt timeout, the request spacer's and the retry's waits): not a leak, as each
   * is removed when its request ends, but unbounded in the estate's size, and Node warns past 10.
   */
  private readonly runs = new Set<AbortController>();
  private stopped = false;

  constructor(
    private readonly jobs: readonly Job[],
    private readonly execute: Execute,
    private readonly onSkip: (job: Job) => void,
  ) {}

  /** Starts the ticks; `runNow` says which jobs also run at once (all of them by default). */
  start(runNow: (job: Job) => boolean = () => true): void {
    for (const job of this.jobs) {
      const task = cron.createTask(job.schedule, () => void this.trigger(job, true), { name: `${job.collector}/${job.target}` });
      void task.start();
      this.tasks.push(task);
      if (runNow(job)) void this.trigger(job, false);
    }
  }

  /**
   * Runs a job now unless it is already running; resolves when the (current) run ends. Only a
   * scheduled tick that finds the job busy counts as skipped; an on-demand run just joins it.
   */
  trigger(job: Job, scheduled: boolean): Promise<void> {
    const inFlight = this.running.get(job);
    if (inFlight) {
      if (scheduled) this.onSkip(job);
      return inFlight;
    }
    if (this.stopped) return Promise.resolve();
    const controller = new AbortController();
    this.runs.add(controller);
    const run = this.execute(job, controller.signal).finally(() => {
      this.running.delete(job);
      this.runs.delete(controller);
    });
    this.running.set(job, run);
    return run;
  }

  /** Runs every job now (or those `which` picks; joining those in flight) and waits for all: for tests and `POST /-/collect`. */
  async runAll(which: (job: Job) => boolean = () => true): Promise<void> {
    const runs: Array<Promise<void>> = [];
    for (const job of this.jobs.filter(which)) {
      const run = this.trigger(job, false);
      run.catch(() => undefined); // reported by the Promise.all below, not as unhandled meanwhile
      runs.push(run);
      // Each job starts (opens its connections, sends its first requests) in a turn of its own:
      // a hundred jobs started together held the event loop for tens of milliseconds.
      await nextTurn();
    }
    await Promise.all(runs);
  }

  /** Stops the ticks and aborts runs in flight; their results are discarded, never committed. */
  async stop(): Promise<void> {
    for (const t of this.tasks) await t.destroy();
    this.tasks.length = 0;
    this.stopped = true;
    for (const c of this.runs) c.abort();
    await Promise.allSettled(this.running.values());
  }
}
