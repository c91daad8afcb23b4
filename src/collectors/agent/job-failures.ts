/**
 * What vigil remembers of each job between two listings, per target: its failed and lost allocations
 * as the last listing counted them, and the rises seen within the failure window. A job's summary
 * only ever counts up (until the job is purged), so a rise between two listings is allocations that
 * failed or were lost in between; the window's sum is what SchedulerJobFailing reads. The first
 * listing after vigil starts is the baseline: it sees no rise. Kept across reloads, as the leader
 * changes are; a target removed from the config is forgotten.
 */

/** One job's memory: compact, one per job of the listing. */
export interface JobTrack {
  /** Failed + lost allocations at the last listing. */
  readonly last: number;
  /** Rises within the window: [time in ms, allocations]; undefined when none. */
  readonly rises: ReadonlyArray<readonly [number, number]> | undefined;
  readonly running: number;
  readonly type: string;
}

export type JobTracks = ReadonlyMap<string, JobTrack>;

export const jobKey = (namespace: string, id: string): string => `${namespace}\u0000${id}`;

/** Tracks one listing against the last: `track` each job as it comes, then `commit` once every page arrived. */
export class JobFailureTracking {
  readonly next = new Map<string, JobTrack>();

  constructor(
    private readonly previous: JobTracks,
    private readonly now: number,
    private readonly windowMs: number,
  ) {}

  /** Records a job's failed + lost count; returns what rose within the window (0: none). */
  track(key: string, failedOrLost: number, running: number, type: string): number {
    const before = this.previous.get(key);
    const since = this.now - this.windowMs;
    let rises = before?.rises?.filter(([at]) => at > since);
    if (before !== undefined && failedOrLost > before.last) rises = [...(rises ?? []), [this.now, failedOrLost - before.last]];
    if (rises?.length === 0) rises = undefined;
    this.next.set(key, { last: failedOrLost, rises, running, type });
    return rises?.reduce((sum, [, n]) => sum + n, 0) ?? 0;
  }
}

/** The tracks of every target's last complete listing. */
export class JobFailures {
  private readonly byTarget = new Map<string, JobTracks>();

  of(target: string): JobTracks {
    return this.byTarget.get(target) ?? new Map();
  }

  /** A complete listing's tracks replace the last: a job gone from the listing is forgotten. */
  commit(target: string, tracks: JobTracks): void {
    this.byTarget.set(target, tracks);
  }

  keep(targets: ReadonlySet<string>): void {
    for (const t of this.byTarget.keys()) if (!targets.has(t)) this.byTarget.delete(t);
  }
}
