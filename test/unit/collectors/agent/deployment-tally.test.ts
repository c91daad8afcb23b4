import { describe, expect, it } from 'vitest';
import { DeploymentTally, deploymentShortfalls } from '../../../../src/collectors/agent/deployment-tally.js';
import type { DeploymentRow } from '../../../../src/collectors/agent/deployments-page.js';
import { jobKey, type JobTrack } from '../../../../src/collectors/agent/job-failures.js';

const dep = (job: string, createIndex: number, status: string, desired = 3, groups = 1): DeploymentRow => ({
  namespace: 'default',
  job,
  status,
  createIndex,
  desired,
  groups: Array.from({ length: groups }, (_, i) => ({ name: `g${i}`, counts: [desired, 1, 1, 0] })),
});
const bounds = { max_deployments: 10, max_deployment_groups: 10, max_job_groups: 10 };
const listing = (rows: DeploymentRow[], b = bounds) => {
  const t = new DeploymentTally();
  rows.forEach((r) => t.add(r));
  return t.listing(b);
};
const track = (running: number, type = 'service'): JobTrack => ({ last: 0, rises: undefined, running, type });

describe('the deployments tally', () => {
  it("keeps each job's latest deployment, whatever order the pages list them in", () => {
    const l = listing([dep('web', 30, 'failed'), dep('web', 10, 'successful'), dep('api', 5, 'successful'), dep('api', 7, 'running')]);
    expect(l.byStatus).toEqual([
      { value: { namespace: 'default', status: 'failed' }, count: 1 },
      { value: { namespace: 'default', status: 'running' }, count: 1 },
    ]);
    expect(l.watched.map((d) => [d.job, d.status])).toEqual([
      ['web', 'failed'],
      ['api', 'running'],
    ]);
  });

  it('keeps at most max_deployments, the failed first, and max_deployment_groups groups each, counting the rest', () => {
    const l = listing([dep('a', 1, 'running'), dep('b', 2, 'failed', 3, 4), dep('c', 3, 'running')], {
      ...bounds,
      max_deployments: 2,
      max_deployment_groups: 2,
    });
    expect(l.watched.map((d) => [d.job, d.groups.length])).toEqual([
      ['b', 2],
      ['a', 1],
    ]);
    expect(l.dropped).toBe(1 + 2);
  });

  it("finds the shortfall of a failed deployment against the service job's running allocations, and none otherwise", () => {
    const l = listing([
      dep('short', 1, 'failed', 4),
      dep('full', 2, 'failed', 3),
      dep('batch', 3, 'failed', 3),
      dep('unlisted', 4, 'failed'),
      dep('rolling', 5, 'running', 5),
    ]);
    const jobs = new Map([
      [jobKey('default', 'short'), track(1)],
      [jobKey('default', 'full'), track(3)],
      [jobKey('default', 'batch'), track(0, 'batch')],
      [jobKey('default', 'rolling'), track(0)],
    ]);
    expect(deploymentShortfalls(l, jobs)).toEqual([{ namespace: 'default', job: 'short', short: 3 }]);
  });
});
