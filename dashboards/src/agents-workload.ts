import type { VigilDashboard } from './common.js';

const T = 'target=~"$target"';
/** Each region once, whichever of its agents list its workload: the region comes from the agents' identity. */
const byRegion = (by: string, expr: string) => `max by (${by}) (${expr} * on (job, instance, target) group_left (region) scheduler_agent_info{${T}})`;

/** The row of the agents' dashboard on the work each region runs: its jobs with problems first, evaluations and deployments. */
export function workloadRow(d: VigilDashboard): VigilDashboard {
  return d
    .row('Jobs, evaluations and deployments')
    .table({
      title: 'Jobs with a problem',
      description:
        'Jobs whose allocations failed or were lost within the failure window, are queued, or that are dead though not stopped (from /v1/jobs?meta=true; needs namespace:list-jobs), by allocations failed or lost within the window, the most first (scheduler_job_allocations has their allocations by state). SchedulerJobFailing pages on a service job above 3, SchedulerJobNoRunningAllocations on one with none running.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [{ expr: `sort_desc(${byRegion('region, namespace, job_id, type', `scheduler_job_allocations_failing{${T}}`)})` }],
    })
    .timeseries({
      title: 'Allocations by state',
      description: "Allocations of every job by state, added up from the jobs' summaries (failed, lost and complete count up until the servers collect them).",
      unit: 'short',
      queries: [
        {
          expr: byRegion('region, state', `sum by (job, instance, target, state) (scheduler_allocations{${T}, state=~"queued|starting|running|lost|unknown"})`),
          legend: '{{region}} {{state}}',
        },
      ],
    })
    .timeseries({
      title: 'Blocked and pending evaluations',
      description:
        'Evaluations waiting per namespace (blocked: no node has room; pending: not yet taken by a scheduler). SchedulerEvaluationsBlocked warns after 15m.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [{ expr: byRegion('region, namespace, status', `scheduler_evaluations{${T}}`), legend: '{{region}} {{namespace}} {{status}}' }],
    })
    .table({
      title: 'Deployments running or failed',
      description:
        "Each job's latest deployment that runs or failed (scheduler_deployment_allocations has its task groups' counts, scheduler_deployment_shortfall what a failed one left a service job short of); SchedulerDeploymentBelowDesired pages on a shortfall, SchedulerDeploymentFailed warns otherwise.",
      unit: 'short',
      mayBeEmpty: true,
      queries: [{ expr: byRegion('region, namespace, job_id, status', `scheduler_deployment_status{${T}}`) }],
    });
}
