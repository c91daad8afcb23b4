import type { FailureClass } from './failure-class.js';

/** The paging matrix's rows of a scheduling region's workload (area "Cluster agents"): its jobs, evaluations and deployments. */
export const WORKLOAD_CLASSES: readonly FailureClass[] = [
  {
    id: 'job-failing',
    area: 'Cluster agents',
    failure: "a service job's allocations fail in a loop (more than 3 failed or lost within 15 minutes)",
    alert: 'SchedulerJobFailing',
    proof: 'live',
    note: 'one page per region, namespace and job, whichever agents and vigils list it; live in test/e2e/paging-workload.test.ts',
  },
  {
    id: 'job-batch-failed',
    area: 'Cluster agents',
    failure: "a batch job's run fails (its allocations end failed)",
    alert: 'SchedulerJobFailing',
    control: true,
    proof: 'live',
    note: "batch and periodic jobs never page for a failed run: it is their owner's to retry",
  },
  {
    id: 'job-few-failures',
    area: 'Cluster agents',
    failure: 'a service job loses an allocation or two to a rolling restart or a lost node',
    alert: 'SchedulerJobFailing',
    control: true,
    proof: 'promtool',
  },
  {
    id: 'job-no-running',
    area: 'Cluster agents',
    failure: 'a service job has allocations queued and none running, or is dead though not stopped',
    alert: 'SchedulerJobNoRunningAllocations',
    proof: 'promtool',
    note: 'holds SchedulerJobAllocationsQueued back for the same job',
  },
  {
    id: 'job-queued',
    area: 'Cluster agents',
    failure: "a job's allocations wait 10 minutes for a node with room (a service job with some running, or a batch job)",
    alert: 'SchedulerJobAllocationsQueued',
    proof: 'live',
    note: 'capacity: a warning',
  },
  {
    id: 'deployment-below-desired',
    area: 'Cluster agents',
    failure: "a job's latest deployment failed and left the service job below its desired count",
    alert: 'SchedulerDeploymentBelowDesired',
    proof: 'live',
    note: 'needs jobs and deployments listed by the same agent',
  },
  {
    id: 'deployment-failed',
    area: 'Cluster agents',
    failure: "a job's latest deployment failed while its old version still runs the desired count (a canary)",
    alert: 'SchedulerDeploymentFailed',
    proof: 'promtool',
  },
  {
    id: 'evaluations-blocked',
    area: 'Cluster agents',
    failure: 'evaluations stay blocked 15 minutes in a namespace where no job shows queued allocations',
    alert: 'SchedulerEvaluationsBlocked',
    proof: 'promtool',
    note: 'where a job shows them, SchedulerJobAllocationsQueued tells of the same cause',
  },
];
