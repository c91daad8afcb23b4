import { family, single, type Family } from '../../metrics/family.js';
import { offloaded } from '../endpoint.js';
import type { AgentAuth } from './auth.js';
import type { JobFailures } from './job-failures.js';
import { JOB_STATUSES, JobTally, type JobGroup, type JobsListing, type WatchedJob } from './job-tally.js';
import { ALLOC_STATES, decodeJobsPage, jobsPage, JOBS_ID, type JobsPageInput } from './jobs-page.js';
import { nextTokenPages } from './next-token-pages.js';
import { optional } from './optional.js';
import { workloadListing, workloadPaging, type WorkloadBounds } from './workload-target.js';

/**
 * `GET /v1/jobs?meta=true&namespace=*`: every job of the region the token may read, with the
 * summary of its task groups' allocations, page by page. A region of any size costs its counts by
 * namespace and type and the jobs with a problem; an unchanged page costs a digest (the memo keeps
 * each page's rows, a tenth of its bytes).
 */

const FROM = 'from a scheduled listing of /v1/jobs?meta=true across namespaces (every page)';
const GROUP = ['target', 'namespace', 'type'] as const;
const JOB = ['target', 'namespace', 'job_id', 'type'] as const;

const byStatus = (g: JobGroup, counts: readonly number[]) =>
  JOB_STATUSES.map((status, i) => ({ labels: { namespace: g.namespace, type: g.type, status }, value: counts[i]! }));
const jobLabels = (j: WatchedJob) => ({ namespace: j.namespace, job_id: j.job, type: j.type });

export const jobsFamilies: readonly Family<JobsListing>[] = [
  family<JobsListing>({
    name: 'scheduler_jobs',
    help: `Jobs (not their dispatched or periodic children) by namespace, type and status (pending, running, dead; any other as other; each at 0 for a combination seen); at most max_job_groups combinations of namespace and type (the jobs of others in scheduler_job_group_series_dropped); ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: [...GROUP, 'status'],
    samples: (l) => l.groups.flatMap((g) => byStatus(g, g.jobs)),
  }),
  family<JobsListing>({
    name: 'scheduler_job_children',
    help: `Dispatched and periodic children of parameterized and periodic jobs, by namespace, type and status, as scheduler_jobs counts jobs; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: [...GROUP, 'status'],
    samples: (l) => l.groups.flatMap((g) => byStatus(g, g.children)),
  }),
  family<JobsListing>({
    name: 'scheduler_allocations',
    help: `Allocations by namespace, job type and state (queued, starting, running, failed, lost, unknown, complete), added up from the jobs' summaries (children included); failed, lost and complete count up until the servers collect the allocations; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: [...GROUP, 'state'],
    samples: (l) => l.groups.flatMap((g) => ALLOC_STATES.map((state, i) => ({ labels: { namespace: g.namespace, type: g.type, state }, value: g.allocs[i]! }))),
  }),
  family<JobsListing>({
    name: 'scheduler_job_allocations',
    help: `Allocations of each job with a problem (allocations failed or lost within workload.failure_window, queued, or a service or system job dead though not stopped) by state, from its summary; at most workload.max_jobs jobs, those dead, failing or without a running allocation first; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: [...JOB, 'state'],
    samples: (l) => l.watched.flatMap((j) => (j.allocs ?? []).map((value, i) => ({ labels: { ...jobLabels(j), state: ALLOC_STATES[i]! }, value }))),
  }),
  family<JobsListing>({
    name: 'scheduler_job_allocations_failing',
    help: `Allocations of a job that failed or were lost within workload.failure_window, as vigil counted the rises of its summary between listings (the first listing after vigil starts is the baseline); present for the jobs of scheduler_job_allocations; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: [...JOB],
    samples: (l) => l.watched.map((j) => ({ labels: jobLabels(j), value: j.failing })),
  }),
  family<JobsListing>({
    name: 'scheduler_job_dead',
    help: `1 for each service or system job (not a child) whose status is dead though it was not stopped: every allocation ended and the servers gave up placing it again; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: [...JOB],
    samples: (l) => l.watched.flatMap((j) => (j.dead ? [{ labels: jobLabels(j), value: 1 }] : [])),
  }),
  family<JobsListing>({
    name: 'scheduler_job_series_dropped',
    help: `Jobs with a problem left without series of their own because they exceed workload.max_jobs (they are in scheduler_jobs and scheduler_allocations); ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((l) => l.dropped),
  }),
  family<JobsListing>({
    name: 'scheduler_job_group_series_dropped',
    help: `Jobs left out of scheduler_jobs, scheduler_job_children and scheduler_allocations because their combination of namespace and type exceeds workload.max_job_groups; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((l) => l.groupsDropped),
  }),
  family<JobsListing>({
    name: 'scheduler_jobs_listing_pages',
    help: 'Pages the last complete listing of /v1/jobs took (workload.page_size jobs each).',
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((l) => l.pages),
  }),
];

/** A job stub with its summary is ~0.7 kB: a page of the default 500 jobs is decoded on a worker thread. */
export const JOBS_PAGE_OFFLOAD_BYTES = 64 * 1024;

/** What the listing reads of its call: the target's name and workload block, and the tracks of its last listing. */
export interface JobsCall extends AgentAuth {
  readonly target: { readonly name: string; readonly workload: WorkloadBounds };
  readonly jobFailures: JobFailures;
}

/** The most jobs one answer may hold: a server before 1.3 does not page, and answers the whole listing at once. */
const mostJobs = (w: WorkloadBounds): number => w.page_size * w.max_pages;

export const jobsEndpoint = optional('jobs', {
  path: '/v1/jobs',
  schema: jobsPage,
  ...workloadListing('namespace:list-jobs and namespace:read-job', 'jobs'),
  offload: offloaded({
    task: decodeJobsPage,
    from: JOBS_PAGE_OFFLOAD_BYTES,
    input: (body, c: JobsCall, _item, sent): JobsPageInput => ({ body, page: sent.page ?? 1, most: mostJobs(c.target.workload) }),
  }),
  read: async (get, c: JobsCall): Promise<JobsListing> => {
    const w = c.target.workload;
    const tally = new JobTally(w, c.jobFailures.of(c.target.name), Date.now());
    const pages = await nextTokenPages(get, workloadPaging(JOBS_ID, w, { namespace: '*', meta: 'true' }), (rows) => rows.forEach((r) => tally.add(r)));
    const listing = tally.listing(pages);
    c.jobFailures.commit(c.target.name, listing.tracks);
    return listing;
  },
  families: jobsFamilies,
  bounds: [
    { items: 'jobs failing, queued or dead', key: 'workload.max_jobs', dropped: 'scheduler_job_series_dropped' },
    { items: 'combinations of namespace and job type', key: 'workload.max_job_groups', dropped: 'scheduler_job_group_series_dropped' },
  ],
  help: "the region's jobs and their allocations' summaries (namespace:list-jobs, read-job): counts by namespace, type and status, allocations by state, and series for jobs failing, queued or dead up to workload.max_jobs; one request per workload.page_size jobs on workload.schedule, an unchanged page decoded once",
});
