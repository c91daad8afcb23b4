/**
 * The jobs of a region as `/v1/jobs` lists them: the real server's job list stub (JobListStub), with
 * its summary (JobSummary) always included. What a job should run (its groups' counts) is kept beside
 * the stub, never in it, as the real stub does not carry it either.
 */
export const JOB_TYPES = ['service', 'batch', 'system', 'sysbatch'] as const;
export type JobType = (typeof JOB_TYPES)[number];
export type JobStatus = 'pending' | 'running' | 'dead';

export interface GroupSummary {
  Queued: number;
  Complete: number;
  Failed: number;
  Running: number;
  Starting: number;
  Lost: number;
  Unknown: number;
}

export interface JobStub {
  ID: string;
  ParentID: string;
  Name: string;
  Namespace: string;
  Datacenters: string[];
  NodePool: string;
  Type: JobType;
  Priority: number;
  Periodic: boolean;
  ParameterizedJob: boolean;
  Stop: boolean;
  Status: JobStatus;
  StatusDescription: string;
  JobSummary: {
    JobID: string;
    Namespace: string;
    Summary: Record<string, GroupSummary>;
    Children: { Pending: number; Running: number; Dead: number };
    CreateIndex: number;
    ModifyIndex: number;
  };
  CreateIndex: number;
  ModifyIndex: number;
  JobModifyIndex: number;
  SubmitTime: number;
}

/** A job and what it should run. */
export interface SimJob {
  stub: JobStub;
  /** Allocations each task group should run. */
  desired: Record<string, number>;
  meta: Record<string, string> | null;
  /** The job's version: a new deployment is made for the next one. */
  version: number;
}

/** How a job is asked for (scenario generation and `POST /_sim/jobs`). */
export interface JobSpec {
  id: string;
  namespace?: string;
  type?: JobType;
  /** Task groups and their counts; one group named after the job, of 1, when absent. */
  groups?: Record<string, number>;
  /** Where its allocations are: running (the default for service and system jobs), complete or failed (they ran and exited). */
  outcome?: 'running' | 'complete' | 'failed';
  periodic?: boolean;
  parameterized?: boolean;
  parentId?: string;
  priority?: number;
  meta?: Record<string, string>;
  children?: { pending?: number; running?: number; dead?: number };
}

/** A region's workload in a scenario: `count` generated jobs over `namespaces`; the small default one when absent. */
export interface WorkloadSpec {
  count: number;
  namespaces?: readonly string[];
  /** Allocations of every generated job (one group); else 1 to 4 by type. */
  allocations?: number;
}

export const zeroGroup = (): GroupSummary => ({ Queued: 0, Complete: 0, Failed: 0, Running: 0, Starting: 0, Lost: 0, Unknown: 0 });

/** Nanoseconds since the epoch, as the real server's times are. */
export const nanos = (ms: number): number => ms * 1e6;

/** Makes a job at raft index `index`. A periodic or parameterized parent runs nothing itself: its children do. */
export function makeJob(spec: JobSpec, index: number, nowMs: number): SimJob {
  const type = spec.type ?? 'service';
  const desired = spec.groups ?? { [spec.id.replace(/\W+/g, '-')]: 1 };
  const parent = spec.periodic === true || spec.parameterized === true;
  const outcome = parent ? 'running' : (spec.outcome ?? (type === 'batch' || type === 'sysbatch' ? 'complete' : 'running'));
  const namespace = spec.namespace ?? 'default';
  const summary: Record<string, GroupSummary> = {};
  for (const [group, count] of Object.entries(desired)) {
    const g = zeroGroup();
    if (!parent) g[outcome === 'running' ? 'Running' : outcome === 'complete' ? 'Complete' : 'Failed'] = count;
    summary[group] = g;
  }
  const children = spec.children ?? {};
  return {
    desired,
    meta: spec.meta ?? null,
    version: 0,
    stub: {
      ID: spec.id,
      ParentID: spec.parentId ?? '',
      Name: spec.id,
      Namespace: namespace,
      Datacenters: ['*'],
      NodePool: 'default',
      Type: type,
      Priority: spec.priority ?? 50,
      Periodic: spec.periodic === true,
      ParameterizedJob: spec.parameterized === true,
      Stop: false,
      Status: outcome === 'running' ? 'running' : 'dead',
      StatusDescription: '',
      JobSummary: {
        JobID: spec.id,
        Namespace: namespace,
        Summary: summary,
        Children: { Pending: children.pending ?? 0, Running: children.running ?? 0, Dead: children.dead ?? 0 },
        CreateIndex: index,
        ModifyIndex: index,
      },
      CreateIndex: index,
      ModifyIndex: index,
      JobModifyIndex: index,
      SubmitTime: nanos(nowMs),
    },
  };
}

/** The workload of a region when the scenario sizes none: small, healthy, in two namespaces. */
export function defaultJobSpecs(nowMs: number): JobSpec[] {
  const run = (minutesAgo: number) => `backup/periodic-${Math.floor(nowMs / 1000) - minutesAgo * 60}`;
  return [
    { id: 'web', groups: { web: 3 }, meta: { team: 'frontend' } },
    { id: 'api', groups: { api: 2, worker: 2 }, meta: { team: 'platform' } },
    { id: 'log-shipper', type: 'system', groups: { shipper: 4 } },
    { id: 'nightly-report', type: 'batch', groups: { report: 1 } },
    { id: 'backup', type: 'batch', periodic: true, groups: { backup: 1 }, children: { dead: 2 } },
    { id: run(120), type: 'batch', parentId: 'backup', groups: { backup: 1 } },
    { id: run(60), type: 'batch', parentId: 'backup', groups: { backup: 1 } },
    { id: 'ledger', namespace: 'payments', groups: { ledger: 3 }, priority: 70, meta: { team: 'payments' } },
    { id: 'gateway', namespace: 'payments', groups: { gateway: 2 }, meta: { team: 'payments' } },
  ];
}

/**
 * `count` jobs spread over `namespaces` in turn, for a bench: mostly healthy service jobs, with a
 * complete batch job and a system job in every ten. Linear in `count`.
 */
export function generatedJobSpecs(count: number, namespaces: readonly string[], allocations?: number): JobSpec[] {
  const specs: JobSpec[] = new Array<JobSpec>(count);
  const width = String(count).length;
  for (let i = 0; i < count; i++) {
    const id = `job-${String(i + 1).padStart(width, '0')}`;
    const namespace = namespaces[i % namespaces.length];
    const kind = i % 10;
    const type: JobType = kind === 7 ? 'batch' : kind === 8 ? 'system' : 'service';
    specs[i] = { id, namespace, type, groups: { [type === 'service' ? 'app' : type]: allocations ?? (type === 'batch' ? 1 : 2 + (i % 3)) } };
  }
  return specs;
}
