import { SeriesCap } from '../../metrics/series-cap.js';
import { JobFailureTracking, jobKey, type JobTracks } from './job-failures.js';
import { ALLOC_STATES, type JobRow } from './jobs-page.js';

/** The statuses the API gives a job; any other is counted as `other`, so a group has at most four. */
export const JOB_STATUSES = ['pending', 'running', 'dead', 'other'] as const;
const STATUS_INDEX = new Map<string, number>(JOB_STATUSES.map((s, i) => [s, i]));
const RUNNING = ALLOC_STATES.indexOf('running');
const QUEUED = ALLOC_STATES.indexOf('queued');
const FAILED = ALLOC_STATES.indexOf('failed');
const LOST = ALLOC_STATES.indexOf('lost');
/** Job types whose allocations are meant to keep running: dead without a stop, they are down. */
const LONG_RUNNING = new Set(['service', 'system']);

/** The jobs of one namespace and type: jobs and dispatched or periodic children by status, their allocations by state. */
export interface JobGroup {
  readonly namespace: string;
  readonly type: string;
  /** By JOB_STATUSES. */
  readonly jobs: number[];
  readonly children: number[];
  /** By ALLOC_STATES. */
  readonly allocs: number[];
}

/** A job with series of its own: its allocations fail, queue, or it is dead though not stopped. */
export interface WatchedJob {
  readonly namespace: string;
  readonly job: string;
  readonly type: string;
  /** By ALLOC_STATES (undefined: the stub had no summary). */
  readonly allocs: readonly number[] | undefined;
  /** Failed and lost allocations added within the failure window. */
  readonly failing: number;
  /** A service or system job, not a child, that is dead and was not stopped. */
  readonly dead: boolean;
}

/** One complete listing of the jobs, counted as its pages arrived. */
export interface JobsListing {
  readonly groups: readonly JobGroup[];
  /** Jobs left out of the groups: their namespace and type were past max_job_groups. */
  readonly groupsDropped: number;
  /** At most max_jobs: dead and failing jobs and service jobs with none running first. */
  readonly watched: readonly WatchedJob[];
  readonly dropped: number;
  readonly pages: number;
  /** Every job of the listing by `jobKey` (what the deployments' shortfall reads). */
  readonly tracks: JobTracks;
}

/** The tally's bounds and window: the target's `workload` block. */
export interface JobTallyBounds {
  readonly max_jobs: number;
  readonly max_job_groups: number;
  readonly failure_window: number;
}

const urgent = (j: WatchedJob): boolean => j.dead || j.failing > 0 || (j.type === 'service' && j.allocs?.[RUNNING] === 0);

/**
 * Takes the jobs one at a time and keeps only what the series need: counts by namespace and type (at
 * most max_job_groups of them), the jobs with a problem (at most max_jobs, the urgent first) and one
 * small track per job to tell the next listing what rose. A listing of any size costs those bounds.
 */
export class JobTally {
  private readonly groups = new Map<string, JobGroup>();
  private groupsDropped = 0;
  private readonly cap: SeriesCap<WatchedJob>;
  private readonly tracking: JobFailureTracking;
  private readonly maxGroups: number;

  constructor(bounds: JobTallyBounds, previous: JobTracks, now: number) {
    this.cap = new SeriesCap<WatchedJob>(bounds.max_jobs, urgent);
    this.tracking = new JobFailureTracking(previous, now, bounds.failure_window);
    this.maxGroups = bounds.max_job_groups;
  }

  add(row: JobRow): void {
    this.count(row);
    const a = row.allocs;
    const failing = a ? this.tracking.track(jobKey(row.namespace, row.id), a[FAILED]! + a[LOST]!, a[RUNNING]!, row.type) : 0;
    const dead = !row.child && !row.stop && row.status === 'dead' && LONG_RUNNING.has(row.type);
    if (dead || failing > 0 || (a?.[QUEUED] ?? 0) > 0) {
      this.cap.offer({ namespace: row.namespace, job: row.id, type: row.type, allocs: a, failing, dead });
    }
  }

  private count(row: JobRow): void {
    const k = jobKey(row.namespace, row.type);
    let g = this.groups.get(k);
    if (!g) {
      if (this.groups.size >= this.maxGroups) {
        this.groupsDropped++;
        return;
      }
      g = { namespace: row.namespace, type: row.type, jobs: JOB_STATUSES.map(() => 0), children: JOB_STATUSES.map(() => 0), allocs: ALLOC_STATES.map(() => 0) };
      this.groups.set(k, g);
    }
    (row.child ? g.children : g.jobs)[STATUS_INDEX.get(row.status) ?? JOB_STATUSES.length - 1]! += 1;
    row.allocs?.forEach((n, i) => (g.allocs[i]! += n));
  }

  listing(pages: number): JobsListing {
    return {
      groups: [...this.groups.values()],
      groupsDropped: this.groupsDropped,
      watched: this.cap.kept(),
      dropped: this.cap.dropped,
      pages,
      tracks: this.tracking.next,
    };
  }
}
