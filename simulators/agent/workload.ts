import { makeDeployment, type DeploymentStatus, type SimDeployment } from './deployments.js';
import { blockEval, makeEval, type EvalFilter, type EvalStatus, type SimEval } from './evaluations.js';
import { defaultJobSpecs, generatedJobSpecs, makeJob, type JobSpec, type SimJob, type WorkloadSpec } from './jobs.js';
import { BY_CREATE_INDEX, pageOf, type Page, type Tokens } from './paging.js';

/** `*` lists every namespace, as on the real server. */
export const ALL_NAMESPACES = '*';

const JOB_TOKENS: Tokens<SimJob> = {
  tokenOf: (j) => jobKey(j.stub.Namespace, j.stub.ID),
  before: (j, token) => jobKey(j.stub.Namespace, j.stub.ID) < token,
};

/** A job's next-page token, as the real server makes it (the tokenizer WithNamespace and WithID): `<namespace>.<id>`. */
export const jobKey = (namespace: string, id: string): string => `${namespace}.${id}`;

interface FailLoop {
  group: string;
  everyMs: number;
  lost: boolean;
  since: number;
  base: number;
  applied: number;
}

/**
 * The workload of one region, shared by its agents like the node fleet: jobs, their evaluations and
 * deployments, with raft indexes that grow with every change. The jobs' sorted listing is cached until
 * a job is added or the workload reset; evaluations and deployments are kept in creation order, which
 * is the order they list in.
 */
export class Workload {
  private index = 0;
  private evalSeq = 0;
  private jobs = new Map<string, SimJob>();
  private evals: SimEval[] = [];
  private deployments: SimDeployment[] = [];
  private failing = new Map<string, FailLoop>();
  private sorted: { all: SimJob[]; byNamespace: Map<string, SimJob[]> } | undefined;

  constructor(
    readonly region: string,
    private readonly spec: WorkloadSpec | undefined,
    private readonly nodes: number,
  ) {
    this.reset();
  }

  /** Back to the scenario's workload: every fault dropped. */
  reset(): void {
    const now = Date.now();
    Object.assign(this, { index: 10, evalSeq: 0, jobs: new Map(), evals: [], deployments: [], failing: new Map(), sorted: undefined });
    const specs = this.spec ? generatedJobSpecs(this.spec.count, this.spec.namespaces ?? ['default'], this.spec.allocations) : defaultJobSpecs(now);
    for (const spec of specs) this.addJob(spec, now);
  }

  /** Adds (or replaces) a job with its registration's evaluation and, for a service job, its two deployments. */
  addJob(spec: JobSpec, now = Date.now()): SimJob {
    const job = makeJob(spec, this.next(), now);
    const key = jobKey(job.stub.Namespace, job.stub.ID);
    if (!this.jobs.has(key)) this.sorted = undefined;
    this.jobs.set(key, job);
    this.failing.delete(key);
    if (!job.stub.Periodic && !job.stub.ParameterizedJob) this.evals.push(makeEval(this.region, this.evalSeq++, job.stub, 'complete', this.next(), now));
    if (job.stub.Type === 'service') {
      // An older version, then the current one: both rolled out.
      this.deployments.push(makeDeployment(this.region, job, 'successful', this.next(), now));
      this.newVersion(job);
      this.deployments.push(makeDeployment(this.region, job, 'successful', this.next(), now));
    }
    return job;
  }

  job(namespace: string, id: string): SimJob | undefined {
    return this.jobs.get(jobKey(namespace, id));
  }

  listJobs(namespace: string, perPage: number, nextToken: string | undefined): Page<SimJob> {
    this.tick();
    const sorted = this.sortedJobs();
    const list = namespace === ALL_NAMESPACES ? sorted.all : (sorted.byNamespace.get(namespace) ?? []);
    return pageOf(list, perPage, nextToken, JOB_TOKENS);
  }

  listEvals(namespace: string, filter: EvalFilter | undefined, perPage: number, nextToken: string | undefined): Page<SimEval> {
    return pageOf<SimEval>(this.evalsIn(namespace, filter), perPage, nextToken, BY_CREATE_INDEX);
  }

  countEvals(namespace: string, filter: EvalFilter | undefined): number {
    return this.evalsIn(namespace, filter).length;
  }

  listDeployments(namespace: string, perPage: number, nextToken: string | undefined): Page<SimDeployment> {
    const all = namespace === ALL_NAMESPACES ? this.deployments : this.deployments.filter((d) => d.Namespace === namespace);
    return pageOf<SimDeployment>(all, perPage, nextToken, BY_CREATE_INDEX);
  }

  /** The group's allocations fail one after another, every `everyMs` (lost instead with `lost`): none stays running. */
  fail(job: SimJob, everyMs: number, lost: boolean): void {
    const group = firstGroup(job);
    const g = job.stub.JobSummary.Summary[group];
    if (!g) return;
    this.failing.set(jobKey(job.stub.Namespace, job.stub.ID), { group, everyMs, lost, since: Date.now(), base: lost ? g.Lost : g.Failed, applied: 0 });
    // Restarts fail too: the replacements start, and never run.
    Object.assign(g, { Running: 0, Starting: job.desired[group] ?? 0 });
    this.settle(job);
  }

  stopFailing(job: SimJob): boolean {
    const key = jobKey(job.stub.Namespace, job.stub.ID);
    const loop = this.failing.get(key);
    if (!loop) return false;
    this.tick();
    this.failing.delete(key);
    const g = job.stub.JobSummary.Summary[loop.group];
    if (g) Object.assign(g, { Running: job.desired[loop.group] ?? 0, Starting: 0 });
    this.settle(job);
    return true;
  }

  /** `queued` allocations of the job's first group find no room; `running` of them still run. A blocked evaluation waits for room. */
  queue(job: SimJob, queued: number, running: number): SimEval {
    const group = firstGroup(job);
    const g = job.stub.JobSummary.Summary[group];
    if (g) Object.assign(g, { Queued: queued, Running: running, Starting: 0 });
    const now = Date.now();
    const placing = makeEval(this.region, this.evalSeq++, job.stub, 'complete', this.next(), now);
    const blocked = makeEval(this.region, this.evalSeq++, job.stub, 'blocked', this.next(), now);
    blockEval(blocked, placing, group, queued, this.nodes);
    this.evals.push(placing, blocked);
    this.settle(job);
    return blocked;
  }

  /** Room again: the queued allocations run, and the job's blocked evaluations complete. */
  unqueue(job: SimJob): void {
    for (const [group, g] of Object.entries(job.stub.JobSummary.Summary)) Object.assign(g, { Queued: 0, Running: job.desired[group] ?? 0 });
    for (const ev of this.evals) {
      if (ev.Namespace === job.stub.Namespace && ev.JobID === job.stub.ID && ev.Status === 'blocked') this.modifyEval(ev, 'complete');
    }
    this.settle(job);
  }

  /** A new version of the job rolls out: its latest deployment, in `status`, with `healthy` allocations healthy per group. */
  deploy(job: SimJob, status: DeploymentStatus, healthy: number | undefined): SimDeployment {
    const now = Date.now();
    for (const d of this.deployments) {
      if (d.Namespace === job.stub.Namespace && d.JobID === job.stub.ID && d.Status === 'running') {
        Object.assign(d, { Status: 'cancelled', StatusDescription: 'Cancelled due to newer version of job', ModifyIndex: this.next() });
      }
    }
    this.newVersion(job);
    const deployment = makeDeployment(this.region, job, status, this.next(), now, healthy);
    this.deployments.push(deployment);
    for (const [group, tg] of Object.entries(deployment.TaskGroups)) {
      const g = job.stub.JobSummary.Summary[group];
      // A failed deployment leaves the job below what it should run: only the healthy allocations run.
      if (g && status === 'failed') Object.assign(g, { Running: tg.HealthyAllocs, Failed: g.Failed + tg.UnhealthyAllocs });
      else if (g) g.Running = tg.DesiredTotal;
    }
    this.settle(job);
    return deployment;
  }

  /** Adds evaluations of a job: blocked ones (with what blocks them) and pending ones. */
  addEvals(job: SimJob, blocked: number, pending: number): SimEval[] {
    const now = Date.now();
    const made: SimEval[] = [];
    for (let i = 0; i < blocked; i++) {
      const placing = makeEval(this.region, this.evalSeq++, job.stub, 'complete', this.next(), now);
      const ev = makeEval(this.region, this.evalSeq++, job.stub, 'blocked', this.next(), now);
      blockEval(ev, placing, firstGroup(job), 1, this.nodes);
      made.push(placing, ev);
    }
    for (let i = 0; i < pending; i++) made.push(makeEval(this.region, this.evalSeq++, job.stub, 'pending', this.next(), now));
    this.evals.push(...made);
    return made.filter((e) => e.Status !== 'complete');
  }

  /** What `/_sim/state` shows of the workload. */
  summary(): Record<string, unknown> {
    this.tick();
    const count = <T>(items: Iterable<T>, key: (t: T) => string) => {
      const out: Record<string, number> = {};
      for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
      return out;
    };
    return {
      jobs: count(this.jobs.values(), (j) => `${j.stub.Type}/${j.stub.Status}`),
      evaluations: count(this.evals, (e) => e.Status),
      deployments: count(this.deployments, (d) => d.Status),
      failing: [...this.failing.keys()],
    };
  }

  /** Applies the failure loops up to now: a count that grows with time, with no timer to stop when the simulator closes. */
  private tick(now = Date.now()): void {
    for (const [key, loop] of this.failing) {
      const failures = Math.floor((now - loop.since) / loop.everyMs);
      const job = this.jobs.get(key);
      const g = job?.stub.JobSummary.Summary[loop.group];
      if (!job || !g || failures === loop.applied) continue;
      loop.applied = failures;
      g[loop.lost ? 'Lost' : 'Failed'] = loop.base + failures;
      this.settle(job);
    }
  }

  private evalsIn(namespace: string, filter: EvalFilter | undefined): SimEval[] {
    if (namespace === ALL_NAMESPACES && !filter) return this.evals;
    return this.evals.filter((e) => (namespace === ALL_NAMESPACES || e.Namespace === namespace) && (!filter || filter(e)));
  }

  private sortedJobs(): { all: SimJob[]; byNamespace: Map<string, SimJob[]> } {
    if (this.sorted) return this.sorted;
    const all = [...this.jobs.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, job]) => job);
    const byNamespace = new Map<string, SimJob[]>();
    for (const job of all) {
      const list = byNamespace.get(job.stub.Namespace);
      if (list) list.push(job);
      else byNamespace.set(job.stub.Namespace, [job]);
    }
    this.sorted = { all, byNamespace };
    return this.sorted;
  }

  private modifyEval(ev: SimEval, status: EvalStatus): void {
    Object.assign(ev, { Status: status, ModifyIndex: this.next(), ModifyTime: Date.now() * 1e6 });
  }

  private newVersion(job: SimJob): void {
    job.version++;
    job.stub.JobModifyIndex = this.next();
  }

  /** The job's status from its allocations (running while any runs or starts, pending while only queued, else dead), and a new modify index. */
  private settle(job: SimJob): void {
    const { stub } = job;
    const groups = Object.values(stub.JobSummary.Summary);
    const live = groups.some((g) => g.Running + g.Starting > 0);
    const queued = groups.some((g) => g.Queued > 0);
    if (!stub.Periodic && !stub.ParameterizedJob) stub.Status = live ? 'running' : queued ? 'pending' : 'dead';
    stub.ModifyIndex = stub.JobSummary.ModifyIndex = this.next();
  }

  private next(): number {
    return ++this.index;
  }
}

const firstGroup = (job: SimJob): string => Object.keys(job.desired)[0] ?? '';
