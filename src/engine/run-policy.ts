import type { Job } from '../jobs/part.js';

/**
 * When a job runs outside its schedule. Reloads and POST /-/collect can come in storms (hundreds a
 * minute); each must not multiply what vigil asks of the upstreams.
 */

export interface LastRun {
  /** When the last run ended, epoch seconds; undefined: it never ran. */
  lastRunSeconds?: number | undefined;
  intervalSeconds: number;
}

/**
 * After a reload, a job runs at once only if its target's config changed, it never ran, or its
 * schedule would have run it by now; otherwise its next tick runs it, as if no reload happened.
 */
export function runsAtReload(last: LastRun | undefined, targetChanged: boolean, nowSeconds: number): boolean {
  if (targetChanged || last?.lastRunSeconds === undefined) return true;
  return nowSeconds - last.lastRunSeconds >= last.intervalSeconds;
}

/**
 * On demand (POST /-/collect), a job that declares a minimum interval (a costly upstream operation
 * such as the merkle check) runs only once that long has passed since its last run.
 */
export function runsOnDemand(job: Pick<Job, 'minIntervalSeconds'>, last: LastRun | undefined, nowSeconds: number): boolean {
  if (job.minIntervalSeconds === undefined || last?.lastRunSeconds === undefined) return true;
  return nowSeconds - last.lastRunSeconds >= job.minIntervalSeconds;
}
