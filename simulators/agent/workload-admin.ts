import { z } from 'zod';
import { DEPLOYMENT_STATUSES } from './deployments.js';
import { JOB_TYPES, type JobSpec } from './jobs.js';
import type { Workload } from './workload.js';

type Body = Record<string, unknown>;
type Reply = { status: number; body: unknown };

const fail = (status: number, message: string): Reply => ({ status, body: { errors: [message] } });
const ok = (body: unknown): Reply => ({ status: 200, body });

const count = z.number().int().min(0);
const name = z.string().regex(/^[a-zA-Z0-9._/-]{1,128}$/, 'letters, digits and . _ / - only');

const failSchema = z.object({ every_ms: z.number().int().min(1).optional(), lost: z.boolean().optional() });
const queueSchema = z.object({ queued: z.number().int().min(1), running: count.optional() });
const deploymentSchema = z.object({ status: z.enum(DEPLOYMENT_STATUSES), healthy: count.optional() });
const evalsSchema = z.object({ blocked: count.optional(), pending: count.optional(), namespace: name.optional(), job: name.optional() });
const jobSchema = z.object({
  id: name,
  namespace: name.optional(),
  type: z.enum(JOB_TYPES).optional(),
  groups: z.record(name, count).optional(),
  outcome: z.enum(['running', 'complete', 'failed']).optional(),
  periodic: z.boolean().optional(),
  parameterized: z.boolean().optional(),
  parent_id: name.optional(),
  priority: z.number().int().min(1).max(100).optional(),
  meta: z.record(z.string(), z.string()).optional(),
  children: z.object({ pending: count.optional(), running: count.optional(), dead: count.optional() }).optional(),
});

/**
 * The `/_sim/jobs` and `/_sim/evaluations` routes (see admin-api.ts); undefined for a route that is
 * not one of them. A job is named by its namespace and ID: `jobs/{namespace}/{id}/{fault}`, the ID
 * possibly holding slashes (a periodic job's children do).
 */
export function workloadAdmin(workload: Workload, method: string, target: string, body: Body): Reply | undefined {
  if (target === 'jobs') {
    if (method === 'DELETE') return (workload.reset(), ok(workload.summary()));
    if (method === 'POST') return addJob(workload, body);
  }
  if (target === 'evaluations' && method === 'POST') return addEvals(workload, body);
  const m = /^jobs\/([^/]+)\/(.+)\/(fail|queue|deployment)$/.exec(target);
  if (!m) return undefined;
  const [, namespace = '', id = '', fault] = m;
  const job = workload.job(namespace, id);
  if (!job) return fail(404, `no job ${id} in namespace ${namespace}`);
  const key = `${method} ${fault}`;
  if (key === 'DELETE fail') return workload.stopFailing(job) ? ok(job.stub) : fail(409, `job ${id} is not failing`);
  if (key === 'DELETE queue') return (workload.unqueue(job), ok(job.stub));
  if (method !== 'POST') return undefined;
  if (fault === 'fail') {
    return parsed(failSchema, body, (b) => (workload.fail(job, b.every_ms ?? 1000, b.lost ?? false), ok(job.stub)));
  }
  if (fault === 'queue') {
    return parsed(queueSchema, body, (b) => ok({ job: job.stub, blocked_evaluation: workload.queue(job, b.queued, b.running ?? 0) }));
  }
  return parsed(deploymentSchema, body, (b) => ok({ job: job.stub, deployment: workload.deploy(job, b.status, b.healthy) }));
}

function addJob(workload: Workload, body: Body): Reply {
  return parsed(jobSchema, body, ({ parent_id: parentId, ...rest }) => {
    const spec: JobSpec = { ...rest, parentId };
    return ok(workload.addJob(spec).stub);
  });
}

function addEvals(workload: Workload, body: Body): Reply {
  return parsed(evalsSchema, body, (b) => addEvalsOf(workload, b));
}

function addEvalsOf(workload: Workload, b: z.infer<typeof evalsSchema>): Reply {
  const namespace = b.namespace ?? 'default';
  const job = b.job ? workload.job(namespace, b.job) : workload.listJobs(namespace, 1, undefined).items[0];
  if (!job) return fail(404, b.job ? `no job ${b.job} in namespace ${namespace}` : `no job in namespace ${namespace}`);
  return ok(workload.addEvals(job, b.blocked ?? 0, b.pending ?? 0));
}

/** The reply of `then` to the body `schema` reads, or a 400 saying what it could not read. */
function parsed<T extends z.ZodTypeAny>(schema: T, body: Body, then: (value: z.infer<T>) => Reply): Reply {
  const r = schema.safeParse(body);
  if (r.success) return then(r.data as z.infer<T>);
  return fail(400, r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
}
