/**
 * The dead-man's switch: an always-firing alert (Watchdog) is expected every repeat_interval; when
 * none has arrived for `maxSilence` the alert path (rules → Alertmanager → receivers) is broken.
 * Before the first one arrives, silence counts from `since` (when the sink started).
 */
export class Watchdog {
  private lastSeen?: number;

  constructor(
    readonly alertname: string,
    readonly maxSilenceMs: number,
    private readonly since: number,
    lastSeen?: number,
    /** The health last reported (a reconfigured sink must not report the same change twice). */
    private healthy = true,
  ) {
    this.lastSeen = lastSeen;
  }

  /** A notification mentioned the Watchdog firing at `at`. */
  seen(at: number): void {
    this.lastSeen = Math.max(this.lastSeen ?? at, at);
  }

  lastSeenAt(): number | undefined {
    return this.lastSeen;
  }

  /** The health at `now`, without recording it. */
  status(now: number): { healthy: boolean; silenceMs: number } {
    const silenceMs = Math.max(0, now - (this.lastSeen ?? this.since));
    return { healthy: silenceMs <= this.maxSilenceMs, silenceMs };
  }

  /** Records the health at `now`; says whether it changed since the last evaluation. */
  evaluate(now: number): { healthy: boolean; changed: boolean; silenceMs: number } {
    const s = this.status(now);
    const changed = s.healthy !== this.healthy;
    this.healthy = s.healthy;
    return { ...s, changed };
  }

  isHealthy(): boolean {
    return this.healthy;
  }
}
