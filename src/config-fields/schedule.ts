import cron from 'node-cron';

/** Seconds between two runs of a cron schedule (the next two fire times). */
export function scheduleIntervalSeconds(schedule: string): number {
  const task = cron.createTask(schedule, () => undefined);
  const [a, b] = task.getNextRuns(2);
  void task.destroy();
  return a && b ? (b.getTime() - a.getTime()) / 1000 : 0;
}

/** What a status endpoint is polled at unless the target says otherwise. */
export const EVERY_15_SECONDS = '*/15 * * * * *';
