import type { Feeds } from './corpus-feeds.js';

/**
 * The feeds tables of the region's workload listings (jobs, evaluations, deployments), written from
 * the families' help texts and the vendor's API docs (corpus-feeds.ts says how they are read).
 */
const JOB = ['scheduler_job_allocations', 'scheduler_job_allocations_failing', 'scheduler_job_dead'];
const JOBS = ['scheduler_jobs', 'scheduler_job_children', 'scheduler_allocations', ...JOB];
const EVALS = ['scheduler_evaluations', 'scheduler_job_evaluations_blocked'];
const DEPLOYMENTS = ['scheduler_deployments', 'scheduler_deployment_status', 'scheduler_deployment_allocations'];

export const WORKLOAD_FEEDS: Record<string, Feeds> = {
  'agent/jobs': {
    essential: ['*', '*.ID', '*.Status'],
    feeds: {
      '*': JOBS,
      '*.Namespace': JOBS,
      '*.Type': JOBS,
      // Whether a dead job was stopped decides whether it is down; a child is counted apart from the jobs.
      '*.Stop': JOB,
      '*.ParentID': ['scheduler_jobs', 'scheduler_job_children', ...JOB],
      // The summary decides the allocations counted and whether a job has a problem (queued, failing).
      '*.JobSummary.**': ['scheduler_allocations', ...JOB],
    },
  },
  'agent/evaluations': {
    essential: ['*', '*.Status'],
    feeds: { '*': EVALS, '*.Namespace': EVALS, '*.JobID': ['scheduler_job_evaluations_blocked'] },
  },
  // The latest deployment of a job is the one created last: without its job, status or index a deployment cannot be placed.
  'agent/deployments': {
    essential: ['*', '*.JobID', '*.Status', '*.CreateIndex'],
    feeds: {
      '*': DEPLOYMENTS,
      '*.Namespace': DEPLOYMENTS,
      '*.TaskGroups.**': ['scheduler_deployment_allocations'],
    },
  },
};

/** The workload's series whose value would page: a job down or failing, a failed deployment short of its count. */
export function workloadAlarming(key: string, value: number): boolean {
  if (key.startsWith('scheduler_job_dead{')) return value === 1;
  if (/^scheduler_(job_allocations_failing|deployment_shortfall)\{/.test(key)) return value > 0;
  return false;
}
