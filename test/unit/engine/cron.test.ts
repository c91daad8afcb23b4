import { describe, expect, it, vi } from 'vitest';
import type { Job, PartOutcome } from '../../../src/jobs/part.js';
import { CronRunner } from '../../../src/engine/cron.js';
import { scheduleIntervalSeconds } from '../../../src/config-fields/schedule.js';
import { NEVER } from '../../helpers/schedules.js';

/** A job whose runs finish only when the test says so. */
function gatedJob() {
  const releases: Array<() => void> = [];
  let started = 0;
  const job: Job = {
    collector: 'c',
    target: 't',
    schedule: NEVER,
    run: () => {
      started += 1;
      return new Promise<PartOutcome[]>((resolve) => releases.push(() => resolve([])));
    },
  };
  return { job, started: () => started, release: () => releases.shift()?.() };
}

describe('the cron runner', () => {
  it('never overlaps a job with its previous run; a scheduled tick that finds it busy is counted as skipped', async () => {
    const g = gatedJob();
    const skipped: string[] = [];
    const s = new CronRunner(
      [g.job],
      (job, signal) => job.run(signal).then(() => undefined),
      (job) => skipped.push(job.target),
    );
    s.start(); // runs once at start
    expect(g.started()).toBe(1);
    void s.trigger(g.job, true);
    void s.trigger(g.job, true);
    expect(g.started()).toBe(1);
    expect(skipped).toEqual(['t', 't']);
    void s.trigger(g.job, false); // an on-demand run joins the one in flight, uncounted
    expect(skipped).toEqual(['t', 't']);
    g.release();
    await new Promise((r) => setImmediate(r));
    void s.trigger(g.job, true);
    expect(g.started()).toBe(2);
    g.release();
    await s.stop();
  });

  it('aborts runs in flight on stop and starts none after', async () => {
    let aborted = false;
    const job: Job = {
      collector: 'c',
      target: 't',
      schedule: NEVER,
      run: (signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve([]);
          });
        }),
    };
    let runs = 0;
    const s = new CronRunner(
      [job],
      (j, signal) => ((runs += 1), j.run(signal).then(() => undefined)),
      () => undefined,
    );
    s.start();
    await s.stop();
    expect(aborted).toBe(true);
    await s.trigger(job, false);
    expect(runs).toBe(1);
  });

  it('fires on its cron schedule', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00.500Z') });
    try {
      let runs = 0;
      const job: Job = { collector: 'c', target: 't', schedule: '* * * * * *', run: async () => ((runs += 1), []) };
      const s = new CronRunner(
        [job],
        (j, signal) => j.run(signal).then(() => undefined),
        () => undefined,
      );
      s.start();
      await vi.advanceTimersByTimeAsync(100);
      expect(runs).toBe(1); // the run at start, before the first tick
      await vi.advanceTimersByTimeAsync(2_000);
      expect(runs).toBe(3); // and one per whole second since
      await s.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ['*/15 * * * * *', 15],
    ['0 */5 * * * *', 300],
    ['0 0 * * * *', 3600],
  ])('reads the interval of %s as %i s', (expr, secs) => {
    expect(scheduleIntervalSeconds(expr)).toBe(secs);
  });
});
