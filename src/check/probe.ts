import type { Collector } from '../collectors/collector.js';
import { switchedOn, type AnyEndpoint } from '../collectors/endpoint.js';
import { COLLECTORS, collectorStates } from '../collectors/index.js';
import { collectionOffloadPool } from '../collectors/offload.js';
import type { Config } from '../config/schema.js';
import { jobContext } from '../jobs/context.js';
import type { PartOutcome } from '../jobs/part.js';
import type { UpstreamError } from '../upstream/errors.js';
import type { CheckLine } from './config-check.js';

/**
 * `--config.check.probe`: runs every job of the config once, as the daemon builds it, and says per
 * endpoint what an operator must fix before deploying. The answers go nowhere; an error's message
 * never carries a token (UpstreamError's rule).
 */

/** How long one job may take: the longest a target's timeouts and retries allow, bounded. */
const JOB_TIMEOUT_MS = 60_000;

/** A declared part name as a pattern of the parts it names (`node {node}`: `node ` and anything). */
const partPattern = (part: string): RegExp => new RegExp(`^${part.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '.+')}$`);
const literal = (part: string): number => part.replace(/\{[^}]+\}/g, '').length;

/**
 * The declarations a part's outcome comes from: the part's own name, or a templated part (`{kind}`,
 * `node {node}`) that names it and whose `_up` the outcome carries, the most specific first. None
 * for a part a job derives (the seal), which no call makes.
 */
function endpointsOf(c: Collector, target: object, o: PartOutcome): AnyEndpoint[] {
  const on = switchedOn(c.endpoints, target);
  const exact = on.filter((e) => e.part === o.part);
  if (exact.length) return exact;
  const named = on.filter((e) => e.part.includes('{') && e.up && partPattern(e.part).test(o.part) && (o.error || o.group.has(e.up.name)));
  const most = Math.max(...named.map((e) => literal(e.part)));
  return named.filter((e) => literal(e.part) === most);
}

/** The secrets service answers 404 for a path the token may not read (its API's status table). */
const refusal = (kind: string, err: UpstreamError): boolean => err.status === 401 || err.status === 403 || (kind === 'secrets' && err.status === 404);

function verdict(kind: string, endpoint: AnyEndpoint | undefined, o: PartOutcome): string {
  if (o.notApplicable) return `not applicable (${endpoint?.notApplicable?.means ?? 'the upstream says so'})`;
  const err = o.error;
  if (!err) return 'ok';
  if (refusal(kind, err)) return `refused (HTTP ${err.status}): needs ${endpoint?.needs ?? 'a permission the token lacks'}`;
  if (err.reason === 'connect' || err.reason === 'timeout') return `unreachable (${err.reason}): ${err.message}`;
  if (err.reason === 'tls') return `TLS failure: ${err.message}`;
  if (err.reason === 'decode' || err.reason === 'schema' || err.reason === 'too_large') return `unreadable answer (${err.reason}): ${err.message}`;
  return `failed (${err.reason}): ${err.message}`;
}

function partLine(c: Collector, target: object, o: PartOutcome): string | undefined {
  const endpoints = endpointsOf(c, target, o);
  if (!endpoints.length && !o.error) return undefined;
  const name = endpoints.length ? endpoints.map((e) => (e.part === o.part ? e.id : `${e.id} (${o.part})`)).join(' + ') : o.part;
  return `${name}: ${verdict(c.kind, endpoints[0], o)}`;
}

/** One report line per target: its endpoints' verdicts as problems, or none when all are ok or not applicable. */
export async function probeTargets(config: Config): Promise<Array<CheckLine & { readonly endpoints: readonly string[] }>> {
  const offload = collectionOffloadPool(1);
  const ctx = jobContext(offload);
  const states = collectorStates();
  try {
    const jobs = COLLECTORS.flatMap((c) => c.jobs(config[c.kind], ctx, states.get(c.kind)).map((job) => ({ c, job })));
    const runs = await Promise.all(jobs.map(async ({ c, job }) => ({ c, job, outcomes: await job.run(AbortSignal.timeout(JOB_TIMEOUT_MS)) })));
    return COLLECTORS.flatMap((c) =>
      config[c.kind].map((t) => {
        const outcomes = runs.filter((r) => r.c === c && r.job.target === t.name).flatMap((r) => r.outcomes);
        const endpoints = outcomes.flatMap((o) => partLine(c, t, o) ?? []);
        const problems = outcomes.flatMap((o) => (o.error ? (partLine(c, t, o) ?? []) : []));
        return { subject: `${c.kind} ${t.name}`, problems, endpoints };
      }),
    );
  } finally {
    await Promise.all(ctx.clients.map((client) => client.close()));
    await offload.close();
  }
}
