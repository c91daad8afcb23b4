import { READS as R, of, sum, type Families } from './estate-families.js';
import type { AgentWorkload } from './estate-model.js';

/**
 * What an agent's listings of its region's workload tell the status page: the jobs with a problem
 * (the worst first, at most MAX_JOBS of them; the others counted), the evaluations blocked, and the
 * jobs whose latest deployment failed. Pure, like buildEstate.
 */
export const MAX_JOBS = 5;

type Job = AgentWorkload['jobs'][number];
const RANK: Record<Job['problem'], number> = { 'no running allocation': 0, dead: 0, 'deployment short': 1, failing: 2, queued: 3, 'deployment failed': 4 };

const keyOf = (l: Record<string, string>) => `${l.namespace ?? ''}\0${l.job_id ?? ''}`;

function jobProblems(f: Families, target: string): Job[] {
  const t = { target };
  const found = new Map<string, Job>();
  const note = (l: Record<string, string>, problem: Job['problem'], count: number) => {
    const k = `${keyOf(l)}\0${problem}`;
    if (!found.has(k)) found.set(k, { namespace: l.namespace ?? '', job: l.job_id ?? '', problem, count });
  };
  const allocs = of(f, R.jobAllocations, t);
  const running = new Map(allocs.filter((s) => s.labels.state === 'running').map((s) => [keyOf(s.labels), s]));
  for (const s of of(f, R.jobDead, t)) if (s.value === 1) note(s.labels, 'dead', 0);
  for (const s of allocs) {
    if (s.labels.state !== 'queued' || s.value === 0) continue;
    const none = s.labels.type === 'service' && running.get(keyOf(s.labels))?.value === 0;
    note(s.labels, none ? 'no running allocation' : 'queued', s.value);
  }
  for (const s of of(f, R.jobFailing, t)) if (s.value > 0) note(s.labels, 'failing', s.value);
  const short = new Set<string>();
  for (const s of of(f, R.deploymentShortfall, t)) {
    if (s.value <= 0) continue;
    short.add(keyOf(s.labels));
    note(s.labels, 'deployment short', s.value);
  }
  for (const s of of(f, R.deploymentStatus, { target, status: 'failed' })) if (!short.has(keyOf(s.labels))) note(s.labels, 'deployment failed', 0);
  return [...found.values()].sort((a, b) => RANK[a.problem] - RANK[b.problem] || a.namespace.localeCompare(b.namespace) || a.job.localeCompare(b.job));
}

/** The agent's workload; null when it lists none of the region's jobs, evaluations or deployments. */
export function agentWorkload(f: Families, target: string): AgentWorkload | null {
  const listed = [R.jobsCounted, R.evaluations, R.deploymentsCounted].some((name) => of(f, name, { target }).length > 0);
  if (!listed) return null;
  const jobs = jobProblems(f, target);
  return {
    jobs: jobs.slice(0, MAX_JOBS),
    moreJobs: Math.max(0, jobs.length - MAX_JOBS),
    blockedEvaluations: sum(of(f, R.evaluations, { target, status: 'blocked' })),
  };
}

/** A job's problem as the page says it. */
export function jobLine(j: Job): string {
  const job = `job ${j.namespace === 'default' ? '' : `${j.namespace}/`}${j.job}`;
  switch (j.problem) {
    case 'dead':
      return `${job}: dead, not stopped`;
    case 'no running allocation':
      return `${job}: no running allocation, ${j.count} queued`;
    case 'failing':
      return `${job}: ${j.count} allocations failed or lost lately`;
    case 'queued':
      return `${job}: ${j.count} allocations queued`;
    case 'deployment short':
      return `${job}: deployment failed, ${j.count} allocations short`;
    case 'deployment failed':
      return `${job}: deployment failed`;
  }
}
