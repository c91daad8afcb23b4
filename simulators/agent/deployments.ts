import { stableUuid } from './identity.js';
import type { SimJob } from './jobs.js';

export const DEPLOYMENT_STATUSES = ['running', 'failed', 'successful', 'cancelled', 'paused', 'blocked', 'pending', 'unblocking'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** What the real server says of a deployment in each status (structs.DeploymentStatusDescription*). */
export const DEPLOYMENT_DESCRIPTIONS: Record<DeploymentStatus, string> = {
  running: 'Deployment is running',
  failed: 'Failed due to unhealthy allocations',
  successful: 'Deployment completed successfully',
  cancelled: 'Cancelled due to newer version of job',
  paused: 'Deployment is paused',
  blocked: 'Deployment is complete but waiting for peer region',
  pending: 'Deployment is pending, waiting for peer region',
  unblocking: 'Deployment is unblocking remaining regions',
};

export interface DeploymentGroup {
  AutoRevert: boolean;
  AutoPromote: boolean;
  ProgressDeadline: number;
  RequireProgressBy: string;
  Promoted: boolean;
  PlacedCanaries: string[] | null;
  DesiredCanaries: number;
  DesiredTotal: number;
  PlacedAllocs: number;
  HealthyAllocs: number;
  UnhealthyAllocs: number;
}

export interface SimDeployment {
  ID: string;
  Namespace: string;
  JobID: string;
  JobVersion: number;
  JobModifyIndex: number;
  JobSpecModifyIndex: number;
  JobCreateIndex: number;
  IsMultiregion: boolean;
  TaskGroups: Record<string, DeploymentGroup>;
  Status: DeploymentStatus;
  StatusDescription: string;
  EvalPriority: number;
  CreateIndex: number;
  ModifyIndex: number;
}

/** 10 minutes, the update block's default progress_deadline, in nanoseconds. */
const PROGRESS_DEADLINE_NS = 600_000_000_000;

/**
 * A deployment of the job's current version at raft index `index`: every group placed in full, `healthy`
 * of them healthy (all when absent), the others unhealthy once it failed.
 */
export function makeDeployment(region: string, job: SimJob, status: DeploymentStatus, index: number, nowMs: number, healthy?: number): SimDeployment {
  const { stub } = job;
  const groups: Record<string, DeploymentGroup> = {};
  for (const [group, total] of Object.entries(job.desired)) {
    const ok = Math.min(total, healthy ?? (status === 'failed' ? 0 : total));
    groups[group] = {
      AutoRevert: false,
      AutoPromote: false,
      ProgressDeadline: PROGRESS_DEADLINE_NS,
      RequireProgressBy: status === 'running' ? new Date(nowMs + PROGRESS_DEADLINE_NS / 1e6).toISOString() : '0001-01-01T00:00:00Z',
      Promoted: false,
      PlacedCanaries: null,
      DesiredCanaries: 0,
      DesiredTotal: total,
      PlacedAllocs: total,
      HealthyAllocs: ok,
      UnhealthyAllocs: status === 'failed' ? total - ok : 0,
    };
  }
  return {
    ID: stableUuid(`deployment:${region}:${stub.Namespace}:${stub.ID}:${job.version}:${index}`),
    Namespace: stub.Namespace,
    JobID: stub.ID,
    JobVersion: job.version,
    JobModifyIndex: stub.JobModifyIndex,
    JobSpecModifyIndex: stub.JobModifyIndex,
    JobCreateIndex: stub.CreateIndex,
    IsMultiregion: false,
    TaskGroups: groups,
    Status: status,
    StatusDescription: DEPLOYMENT_DESCRIPTIONS[status],
    EvalPriority: stub.Priority,
    CreateIndex: index,
    ModifyIndex: index,
  };
}
