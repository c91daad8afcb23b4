/** A cron schedule that does not fire during a test run (once a year, at midnight on 1 January). */
export const NEVER = '0 0 0 1 1 *';
