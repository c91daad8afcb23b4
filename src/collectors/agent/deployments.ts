import { family, type Family } from '../../metrics/family.js';
import { offloaded } from '../endpoint.js';
import type { AgentAuth } from './auth.js';
import type { deploymentShortfalls } from './deployment-tally.js';
import { DeploymentTally, type DeploymentsListing } from './deployment-tally.js';
import { DEPLOYMENT_STATES, decodeDeploymentsPage, deploymentsPage, DEPLOYMENTS_ID } from './deployments-page.js';
import { nextTokenPages } from './next-token-pages.js';
import { optional } from './optional.js';
import { workloadListing, workloadPaging, type WorkloadBounds } from './workload-target.js';

/**
 * `GET /v1/deployments?namespace=*`: every deployment the servers still hold (terminal ones are
 * collected after an hour), of which the latest per job counts: a job's rollout under way, or one
 * that failed and stopped halfway.
 */
const FROM = 'from a scheduled listing of /v1/deployments across namespaces (every page), the latest deployment of each job';

export const deploymentsFamilies: readonly Family<DeploymentsListing>[] = [
  family<DeploymentsListing>({
    name: 'scheduler_deployments',
    help: `Jobs by namespace and the status of their latest deployment (running, failed, successful, cancelled, paused, blocked, pending, unblocking, initializing); ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'namespace', 'status'],
    samples: (l) => l.byStatus.map(({ value, count }) => ({ labels: value, value: count })),
  }),
  family<DeploymentsListing>({
    name: 'scheduler_deployment_status',
    help: `1 for each job whose latest deployment runs or failed, with its status; at most workload.max_deployments jobs, the failed first; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'namespace', 'job_id', 'status'],
    samples: (l) => l.watched.map((d) => ({ labels: { namespace: d.namespace, job_id: d.job, status: d.status }, value: 1 })),
  }),
  family<DeploymentsListing>({
    name: 'scheduler_deployment_allocations',
    help: `Allocations of each task group of a latest deployment that runs or failed, by state (desired: the group's count; placed; healthy; unhealthy); at most workload.max_deployment_groups groups a deployment; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'namespace', 'job_id', 'task_group', 'state'],
    samples: (l) =>
      l.watched.flatMap((d) =>
        d.groups.flatMap((g) =>
          DEPLOYMENT_STATES.flatMap((state, i) => {
            const value = g.counts[i];
            return value === undefined ? [] : [{ labels: { namespace: d.namespace, job_id: d.job, task_group: g.name, state }, value }];
          }),
        ),
      ),
  }),
  family<DeploymentsListing>({
    name: 'scheduler_deployment_series_dropped',
    help: `Latest deployments and task groups left without series of their own: past workload.max_deployments or workload.max_deployment_groups, or their namespace past workload.max_job_groups; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: (l) => [{ labels: {}, value: l.dropped }],
  }),
];

/** What a failed deployment left a service job short of, when the jobs listing ran in the same run. */
export const deploymentShortfallFamily = family<ReturnType<typeof deploymentShortfalls>>({
  name: 'scheduler_deployment_shortfall',
  help: `Allocations a service job whose latest deployment failed runs fewer of than that deployment wanted (all its task groups' desired, less the job's running allocations of any version); present only above 0; ${FROM}, with /v1/jobs.`,
  type: 'gauge',
  section: 'agent',
  labels: ['target', 'namespace', 'job_id'],
  samples: (s) => s.map(({ namespace, job, short }) => ({ labels: { namespace, job_id: job }, value: short })),
});

interface DeploymentsCall extends AgentAuth {
  readonly target: { readonly workload: WorkloadBounds };
}

export const deploymentsEndpoint = optional('deployments', {
  path: '/v1/deployments',
  schema: deploymentsPage,
  ...workloadListing('namespace:read-job', 'deployments'),
  offload: offloaded({ task: decodeDeploymentsPage, from: 64 * 1024, input: (body) => ({ body }) }),
  read: async (get, c: DeploymentsCall): Promise<DeploymentsListing> => {
    const w = c.target.workload;
    const tally = new DeploymentTally();
    await nextTokenPages(get, workloadPaging(DEPLOYMENTS_ID, w, { namespace: '*' }), (rows) => rows.forEach((r) => tally.add(r)));
    return tally.listing(w);
  },
  families: deploymentsFamilies,
  bounds: [
    { items: 'jobs whose latest deployment runs or failed', key: 'workload.max_deployments', dropped: 'scheduler_deployment_series_dropped' },
    { items: 'task groups of one deployment', key: 'workload.max_deployment_groups', dropped: 'scheduler_deployment_series_dropped' },
  ],
  help: 'the latest deployment of each job (namespace:read-job): counts by namespace and status, and per task group desired, placed, healthy and unhealthy allocations for those running or failed, up to workload.max_deployments; one request per workload.page_size deployments on workload.schedule',
});
