import type { Collector } from '../collectors/collector.js';
import type { AnyEndpoint } from '../collectors/endpoint.js';
import { COLLECTORS, collectorStates, type TargetKind } from '../collectors/index.js';
import { planEndpoints, type StepOutcome } from '../collectors/plan.js';
import { collectionOffloadPool } from '../collectors/decoding.js';
import type { Config } from '../config/schema.js';
import { jobContext } from '../jobs/job-context.js';
import type { PartOutcome } from '../jobs/part.js';
import type { UpstreamError } from '../upstream/errors.js';
import type { CheckLine } from './config-check.js';

/**
 * `--config.check.probe`: runs every job of the config once, as the daemon builds it, and says per
 * endpoint what an operator must fix before deploying. The answers go nowhere; an error's message
 * never carries a token (UpstreamError's rule). A check acts on nothing: a job that calls an
 * endpoint which acts on the upstream (starts a merkle check) is not run, and its report says so.
 */

/** How long one job may take: the longest a target's timeouts and retries allow, bounded. */
const JOB_TIMEOUT_MS = 60_000;

/** The secrets service answers 404 for a path the token may not read (its API's status table). */
const refusal = (kind: string, err: UpstreamError): boolean => err.status === 401 || err.status === 403 || (kind === 'secrets' && err.status === 404);

function verdict(kind: string, endpoint: AnyEndpoint | undefined, o: PartOutcome): string {
  if (o.notApplicable) return `not applicable (${endpoint?.notApplicable?.means ?? 'the upstream says so'})`;
  const err = o.error;
  if (!err) return 'ok';
  if (refusal(kind, err)) return `refused (HTTP ${err.status}): needs ${endpoint?.needs ?? 'a permission the token lacks'}`;
  if (err.reason === 'connect' || err.reason === 'timeout') return `unreachable (${err.reason}): ${err.message}`;
  if (err.reason === 'tls') return `TLS failure: ${err.message}`;
  if (err.reason === 'proxy') return `the proxy failed (proxy): ${err.message}`;
  if (err.reason === 'decode' || err.reason === 'schema' || err.reason === 'too_large') return `unreadable answer (${err.reason}): ${err.message}`;
  return `failed (${err.reason}): ${err.message}`;
}

/** What one part's call came to, under its endpoint (and item); none for a part a run derives, unless its run failed as a whole. */
function partLine(kind: string, o: StepOutcome): string | undefined {
  if (!o.endpoint && !o.error) return undefined;
  const name = o.endpoint ? (o.item === undefined ? o.endpoint.id : `${o.endpoint.id} (${o.item})`) : o.part;
  return `${name}: ${verdict(kind, o.endpoint, o)}`;
}

/** One report line per target: its endpoints' verdicts as problems, or none when all are ok or not applicable. */
export async function probeTargets(config: Config): Promise<Array<CheckLine & { readonly endpoints: readonly string[] }>> {
  const offload = collectionOffloadPool(1);
  const ctx = jobContext(offload);
  const states = collectorStates();
  try {
    const jobs = (COLLECTORS as readonly Collector[]).flatMap((c) =>
      c.jobs(config[c.kind as TargetKind], ctx, states.get(c.kind as TargetKind)).map((job) => ({ c, job })),
    );
    const runs = await Promise.all(
      jobs.map(async ({ c, job }) => {
        const plan = c.plans.find((p) => p.job === job.collector);
        const acting = plan ? planEndpoints(plan).filter((e) => e.acts) : [];
        if (acting.length) return { c, job, outcomes: [], held: acting.map((e) => `${e.id}: not called by the probe (it would ${e.acts})`) };
        return { c, job, outcomes: await job.run(AbortSignal.timeout(JOB_TIMEOUT_MS)), held: [] };
      }),
    );
    return (COLLECTORS as readonly Collector[]).flatMap((c) =>
      (config[c.kind as TargetKind] as ReadonlyArray<{ name: string }>).map((t) => {
        const mine = runs.filter((r) => r.c === c && r.job.target === t.name);
        const outcomes: StepOutcome[] = mine.flatMap((r) => r.outcomes);
        const endpoints = [...outcomes.flatMap((o) => partLine(c.kind, o) ?? []), ...mine.flatMap((r) => r.held)];
        const problems = outcomes.flatMap((o) => (o.error ? (partLine(c.kind, o) ?? []) : []));
        return { subject: `${c.kind} ${t.name}`, problems, endpoints };
      }),
    );
  } finally {
    await Promise.all(ctx.clients.map((client) => client.close()));
    await offload.close();
  }
}
