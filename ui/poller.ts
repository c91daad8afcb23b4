/**
 * When the live view asks again: one request at a time (a slow answer is never overlapped), nothing
 * while the tab is hidden, at once when it is shown again, and after failures a wait that doubles
 * up to a cap, so tabs left open on a vigil that is down do not hammer it. No DOM here: the page
 * hands in what it needs, and tests drive it with fake timers.
 */

export interface PollerEnv {
  hidden(): boolean;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const EVERY_MS = 2500;
export const MAX_BACKOFF_MS = 60_000;

export class Poller {
  private timer: unknown;
  private inFlight = false;
  private failures = 0;

  constructor(
    /** One refresh; rejects when it failed. */
    private readonly refresh: () => Promise<void>,
    private readonly env: PollerEnv,
    private readonly everyMs = EVERY_MS,
  ) {}

  /** The wait before the next refresh, after `failures` failures in a row. */
  static delay(failures: number, everyMs = EVERY_MS): number {
    return Math.min(MAX_BACKOFF_MS, everyMs * 2 ** failures);
  }

  /** Refreshes now unless one is running; schedules the next unless the tab is hidden. */
  async tick(): Promise<void> {
    if (this.inFlight) return;
    this.inFlight = true;
    this.env.clearTimeout(this.timer);
    try {
      await this.refresh();
      this.failures = 0;
    } catch {
      this.failures += 1;
    } finally {
      this.inFlight = false;
      if (!this.env.hidden()) this.timer = this.env.setTimeout(() => void this.tick(), Poller.delay(this.failures, this.everyMs));
    }
  }

  /** The tab was hidden or shown. */
  visibilityChanged(): void {
    if (this.env.hidden()) this.env.clearTimeout(this.timer);
    else void this.tick();
  }
}
