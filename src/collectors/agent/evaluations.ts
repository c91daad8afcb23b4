import { z } from 'zod';
import { family, type Family } from '../../metrics/family.js';
import { BoundedCounts } from '../../metrics/bounded-counts.js';
import { foldLabelValue } from '../../support/label-value.js';
import { decode } from '../../upstream/decode.js';
import { parseBody, textOf } from '../../upstream/parse.js';
import { lenient } from '../../upstream/schema-helpers.js';
import { offloaded } from '../endpoint.js';
import type { AgentAuth } from './auth.js';
import { jobKey } from './job-failures.js';
import { nextTokenPages } from './next-token-pages.js';
import { optional } from './optional.js';
import { workloadListing, workloadPaging, type WorkloadBounds } from './workload-target.js';

/**
 * `GET /v1/evaluations?namespace=*&filter=...`: the region's evaluations that wait, blocked (no node
 * has room for a placement; the scheduler tries again when capacity frees) or pending (not yet taken
 * by a scheduler worker). The filter (servers from 1.2 apply it) asks for those two statuses only; an
 * older server ignores it and answers every evaluation it still holds, which the listing's page
 * bound limits and the tally reads past. The count endpoint (1.6) says how many, not of which job:
 * the listing answers both in the same requests.
 */
const text = lenient(z.string());
export const evaluationsPage = z
  .array(z.object({ Namespace: text, JobID: text, Status: z.string() }))
  .nullish()
  .transform((v) => v ?? []);

/** The statuses counted; every other status of an older server's answer is passed over. */
export const WAITING = ['blocked', 'pending'] as const;
const EVALS_ID = 'agent/evaluations';
export const EVALUATIONS_FILTER = WAITING.map((s) => `Status == "${s}"`).join(' or ');

export interface EvalRow {
  readonly namespace: string;
  readonly job: string;
  readonly status: (typeof WAITING)[number];
}

/** A page's waiting evaluations as rows. Pure, so that a large page is decoded on a worker thread. */
export function decodeEvaluationsPage({ body }: { body: Uint8Array }): EvalRow[] {
  const rows: EvalRow[] = [];
  for (const e of parseBody(evaluationsPage, decode(textOf(body), EVALS_ID), EVALS_ID)) {
    const status = WAITING.find((s) => s === e.Status);
    if (status) rows.push({ namespace: foldLabelValue(e.Namespace || 'default'), job: foldLabelValue(e.JobID ?? ''), status });
  }
  return rows;
}

export interface EvaluationsListing {
  readonly byNamespace: ReadonlyArray<{ value: { namespace: string; status: string }; count: number }>;
  readonly blockedJobs: ReadonlyArray<{ value: { namespace: string; job_id: string }; count: number }>;
  readonly dropped: number;
}

const FROM = 'from a scheduled listing of /v1/evaluations across namespaces, filtered to blocked and pending (every page)';

export const evaluationsFamilies: readonly Family<EvaluationsListing>[] = [
  family<EvaluationsListing>({
    name: 'scheduler_evaluations',
    help: `Evaluations waiting, by namespace and status (blocked: no node has room for a placement; pending: not yet taken by a scheduler); absent for a namespace with none; at most workload.max_job_groups namespaces; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'namespace', 'status'],
    samples: (l) => l.byNamespace.map(({ value, count }) => ({ labels: value, value: count })),
  }),
  family<EvaluationsListing>({
    name: 'scheduler_job_evaluations_blocked',
    help: `Blocked evaluations of each job that has one (the scheduler keeps one per job, so 1 is the usual value); at most workload.max_blocked_jobs jobs; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'namespace', 'job_id'],
    samples: (l) => l.blockedJobs.map(({ value, count }) => ({ labels: value, value: count })),
  }),
  family<EvaluationsListing>({
    name: 'scheduler_evaluation_series_dropped',
    help: `Waiting evaluations left out of a series: their job exceeds workload.max_blocked_jobs (scheduler_job_evaluations_blocked), or their namespace workload.max_job_groups (scheduler_evaluations); ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: (l) => [{ labels: {}, value: l.dropped }],
  }),
];

interface EvaluationsCall extends AgentAuth {
  readonly target: { readonly workload: WorkloadBounds };
}

export const evaluationsEndpoint = optional('evaluations', {
  path: '/v1/evaluations',
  schema: evaluationsPage,
  ...workloadListing('namespace:read-job', 'evaluations'),
  offload: offloaded({ task: decodeEvaluationsPage, from: 64 * 1024, input: (body) => ({ body }) }),
  read: async (get, c: EvaluationsCall): Promise<EvaluationsListing> => {
    const w = c.target.workload;
    const byNamespace = new BoundedCounts<{ namespace: string; status: string }>(w.max_job_groups);
    const blockedJobs = new BoundedCounts<{ namespace: string; job_id: string }>(w.max_blocked_jobs);
    await nextTokenPages(get, workloadPaging(EVALS_ID, w, { namespace: '*', filter: EVALUATIONS_FILTER }), (rows) => {
      for (const r of rows) {
        byNamespace.add(jobKey(r.namespace, r.status), { namespace: r.namespace, status: r.status });
        if (r.status === 'blocked') blockedJobs.add(jobKey(r.namespace, r.job), { namespace: r.namespace, job_id: r.job });
      }
    });
    return { byNamespace: byNamespace.entries(), blockedJobs: blockedJobs.entries(), dropped: byNamespace.dropped + blockedJobs.dropped };
  },
  families: evaluationsFamilies,
  bounds: [
    { items: 'jobs with a blocked evaluation', key: 'workload.max_blocked_jobs', dropped: 'scheduler_evaluation_series_dropped' },
    { items: 'namespaces with a waiting evaluation', key: 'workload.max_job_groups', dropped: 'scheduler_evaluation_series_dropped' },
  ],
  help: "the region's blocked and pending evaluations (namespace:read-job): counts by namespace and status, and blocked ones per job up to workload.max_blocked_jobs; one request per workload.page_size waiting evaluations on workload.schedule",
});
