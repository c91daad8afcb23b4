import { BoundedCounts } from '../../metrics/bounded-counts.js';
import { capped } from '../../metrics/series-cap.js';
import { jobKey, type JobTracks } from './job-failures.js';
import { WATCHED_DEPLOYMENTS, type DeploymentRow } from './deployments-page.js';

/** A job's latest deployment with series of its own (running or failed), its task groups bounded. */
export interface WatchedDeployment {
  readonly namespace: string;
  readonly job: string;
  readonly status: string;
  readonly desired: number;
  readonly groups: DeploymentRow['groups'];
}

export interface DeploymentsListing {
  /** Jobs' latest deployments by namespace and status. */
  readonly byStatus: ReadonlyArray<{ value: { namespace: string; status: string }; count: number }>;
  /** At most max_deployments, the failed first. */
  readonly watched: readonly WatchedDeployment[];
  /** Latest deployments and task groups left without series (past max_deployments, max_deployment_groups, or namespaces past max_job_groups). */
  readonly dropped: number;
}

export interface DeploymentBounds {
  readonly max_deployments: number;
  readonly max_deployment_groups: number;
  readonly max_job_groups: number;
}

/**
 * Keeps the latest deployment of each job (the one created last) as the pages arrive: one row per
 * job that has a deployment, whatever number of older ones the servers still hold.
 */
export class DeploymentTally {
  private readonly latest = new Map<string, DeploymentRow>();

  add(row: DeploymentRow): void {
    const key = jobKey(row.namespace, row.job);
    const seen = this.latest.get(key);
    if (seen === undefined || row.createIndex > seen.createIndex) this.latest.set(key, row);
  }

  listing(bounds: DeploymentBounds): DeploymentsListing {
    const byStatus = new BoundedCounts<{ namespace: string; status: string }>(bounds.max_job_groups);
    const watched: WatchedDeployment[] = [];
    for (const d of this.latest.values()) {
      byStatus.add(jobKey(d.namespace, d.status), { namespace: d.namespace, status: d.status });
      if (WATCHED_DEPLOYMENTS.has(d.status)) watched.push(d);
    }
    const kept = capped(watched, bounds.max_deployments, (d) => d.status === 'failed');
    let dropped = byStatus.dropped + kept.dropped;
    const bounded = kept.kept.map((d) => {
      if (d.groups.length <= bounds.max_deployment_groups) return d;
      dropped += d.groups.length - bounds.max_deployment_groups;
      return { ...d, groups: d.groups.slice(0, bounds.max_deployment_groups) };
    });
    return { byStatus: byStatus.entries(), watched: bounded, dropped };
  }
}

/**
 * What a failed deployment left its service job short of: the allocations it wanted, less those of
 * the job that run (any version: a failed rollout whose old allocations still serve leaves no
 * shortfall). Only for jobs the jobs listing counted, in the same run.
 */
export function deploymentShortfalls(deployments: DeploymentsListing, jobs: JobTracks): Array<{ namespace: string; job: string; short: number }> {
  return deployments.watched.flatMap((d) => {
    if (d.status !== 'failed') return [];
    const track = jobs.get(jobKey(d.namespace, d.job));
    if (track === undefined || track.type !== 'service' || track.running >= d.desired) return [];
    return [{ namespace: d.namespace, job: d.job, short: d.desired - track.running }];
  });
}
