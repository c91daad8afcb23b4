import type http from 'node:http';
import { sendJson, sendText } from '../common/http.js';
import { parseEvalFilter, type EvalFilter } from './evaluations.js';
import { NEXT_TOKEN_HEADER, pagingOf, type Page } from './paging.js';
import type { AclPolicy } from './scenario.js';
import type { Workload } from './workload.js';

/** The real server's default when a request names no namespace. */
const DEFAULT_NAMESPACE = 'default';

type Answer = (workload: Workload, query: URLSearchParams, res: http.ServerResponse, paged: boolean) => void;

/**
 * The region's workload as the real server lists it: the jobs (`namespace:list-jobs`), their
 * evaluations and deployments (`namespace:read-job`). `namespace` names one namespace (`default` when
 * absent) or `*` for all; the lists page as `/v1/nodes` does. `paged` is false for a release that knew
 * no paging: it answers every item whatever was asked.
 */
export const WORKLOAD_ENDPOINTS: Record<string, { acl: AclPolicy; answer: Answer }> = {
  '/v1/jobs': { acl: 'namespace:list-jobs', answer: sendJobs },
  '/v1/evaluations': { acl: 'namespace:read-job', answer: sendEvals },
  '/v1/evaluations/count': { acl: 'namespace:read-job', answer: sendEvalCount },
  '/v1/deployments': { acl: 'namespace:read-job', answer: sendDeployments },
};

const namespaceOf = (query: URLSearchParams): string => query.get('namespace') || DEFAULT_NAMESPACE;

/** Job stubs with their summary; `meta=true` adds each job's `Meta` (left out when it has none, as omitempty does). `prefix` and `filter` are not simulated. */
function sendJobs(workload: Workload, query: URLSearchParams, res: http.ServerResponse, paged: boolean): void {
  const meta = query.get('meta') === 'true';
  sendPage(res, query, paged, (perPage, token) => {
    const page = workload.listJobs(namespaceOf(query), perPage, token);
    return { next: page.next, items: page.items.map((j) => (meta && j.meta ? { ...j.stub, Meta: j.meta } : j.stub)) };
  });
}

function sendEvals(workload: Workload, query: URLSearchParams, res: http.ServerResponse, paged: boolean): void {
  const filter = evalFilterOf(query);
  if ('error' in filter) return sendText(res, 400, `failed to create result paginator: failed to read filter expression: ${filter.error}`);
  sendPage(res, query, paged, (perPage, token) => workload.listEvals(namespaceOf(query), filter.accepts, perPage, token));
}

/**
 * `{"Count": N}` of the evaluations the filter keeps. A filter the server cannot read is not a coded
 * error in Eval.Count (unlike the list's paginator), so it reaches the client as a 500.
 */
function sendEvalCount(workload: Workload, query: URLSearchParams, res: http.ServerResponse, paged: boolean): void {
  // Before 1.6 there was no such endpoint: the path fell to the evaluation lookup, which knows no ID "count".
  if (!paged) return sendText(res, 404, 'eval not found');
  const filter = evalFilterOf(query);
  if ('error' in filter) return sendText(res, 500, filter.error);
  sendJson(res, 200, { Count: workload.countEvals(namespaceOf(query), filter.accepts), NextToken: '', Index: 1, LastContact: 0, KnownLeader: true });
}

function sendDeployments(workload: Workload, query: URLSearchParams, res: http.ServerResponse, paged: boolean): void {
  sendPage(res, query, paged, (perPage, token) => workload.listDeployments(namespaceOf(query), perPage, token));
}

function sendPage(res: http.ServerResponse, query: URLSearchParams, paged: boolean, list: (perPage: number, token: string | undefined) => Page<unknown>): void {
  const paging = pagingOf(query, paged);
  if ('error' in paging) return sendText(res, 400, paging.error);
  const page = list(paging.perPage, paging.nextToken);
  sendJson(res, 200, page.items, page.next ? { [NEXT_TOKEN_HEADER]: page.next } : {});
}

/** The bexpr `filter`, with the older `job` and `status` parameters on top of it (both must hold). */
function evalFilterOf(query: URLSearchParams): { accepts: EvalFilter | undefined } | { error: string } {
  const parts: EvalFilter[] = [];
  const expression = query.get('filter');
  if (expression) {
    const parsed = parseEvalFilter(expression);
    if ('error' in parsed) return parsed;
    parts.push(parsed);
  }
  const job = query.get('job');
  const status = query.get('status');
  if (job) parts.push((e) => e.JobID === job);
  if (status) parts.push((e) => e.Status === status);
  return { accepts: parts.length === 0 ? undefined : (e) => parts.every((p) => p(e)) };
}
