import { z } from 'zod';
import { decode } from '../../upstream/decode.js';
import { UpstreamError } from '../../upstream/errors.js';
import { parseBody, textOf } from '../../upstream/parse.js';
import { boolish, lenient } from '../../upstream/schema-helpers.js';
import { foldLabelValue } from '../../support/label-value.js';

/**
 * One page of `GET /v1/jobs?meta=true` (job stubs with their summaries), read down to what the
 * tally counts. A job's ID and status are essential (it cannot be counted without them); every other
 * field costs only what it feeds: a server without namespaces (before 0.12 OSS / 1.0) counts its
 * jobs under `default`, a stub without `JobSummary` adds no allocations.
 */

/** The allocation states of a task group's summary, in the order a row keeps them. */
export const ALLOC_STATES = ['queued', 'starting', 'running', 'failed', 'lost', 'unknown', 'complete'] as const;
export type AllocState = (typeof ALLOC_STATES)[number];
const SUMMARY_KEYS = ['Queued', 'Starting', 'Running', 'Failed', 'Lost', 'Unknown', 'Complete'] as const;

const count = lenient(z.number().int().nonnegative());
const text = lenient(z.string());

const groupSummary = z.object(Object.fromEntries(SUMMARY_KEYS.map((k) => [k, count])) as Record<(typeof SUMMARY_KEYS)[number], typeof count>);

export const jobStub = z.object({
  ID: z.string(),
  Namespace: text,
  Type: text,
  Status: z.string(),
  Stop: lenient(boolish),
  ParentID: text,
  JobSummary: lenient(z.object({ Summary: lenient(z.record(z.string(), groupSummary)) })),
});

export const jobsPage = z
  .array(jobStub)
  .nullish()
  .transform((v) => v ?? []);

/** A job as the tally reads it: labels folded, its task groups' summaries added up (undefined: the stub had none). */
export interface JobRow {
  readonly namespace: string;
  readonly id: string;
  readonly type: string;
  readonly status: string;
  readonly stop: boolean;
  /** A dispatched or periodic instance of a parent job (`ParentID` set). */
  readonly child: boolean;
  /** By ALLOC_STATES. */
  readonly allocs: readonly number[] | undefined;
}

function rowOf(j: z.output<typeof jobStub>): JobRow {
  const groups = j.JobSummary?.Summary;
  let allocs: number[] | undefined;
  if (groups) {
    allocs = ALLOC_STATES.map(() => 0);
    for (const g of Object.values(groups)) SUMMARY_KEYS.forEach((k, i) => (allocs![i]! += g[k] ?? 0));
  }
  return {
    namespace: foldLabelValue(j.Namespace || 'default'),
    id: foldLabelValue(j.ID),
    type: foldLabelValue(j.Type ?? ''),
    status: foldLabelValue(j.Status),
    stop: j.Stop === true,
    child: (j.ParentID ?? '') !== '',
    allocs,
  };
}

/** One page as received, and what reading it needs: which page it is, and the most jobs a page may hold. */
export interface JobsPageInput {
  body: Uint8Array;
  page: number;
  /** per_page, or, from a server that does not page (before 1.3), the whole listing's bound. */
  most: number;
}

export const JOBS_ID = 'agent/jobs';

/**
 * A page's jobs as rows. A page holding more than `most` jobs (a server that ignores paging and
 * answers more than the listing's bound, or a hostile one) is refused before any job of it is read.
 * Pure, so that a large page is decoded on a worker thread.
 */
export function decodeJobsPage({ body, page, most }: JobsPageInput): JobRow[] {
  const doc = decode(textOf(body), JOBS_ID);
  if (Array.isArray(doc) && doc.length > most) {
    throw new UpstreamError('too_large', `${JOBS_ID}: page ${page} holds ${doc.length} jobs, more than the ${most} the listing may hold`);
  }
  return parseBody(jobsPage, doc, JOBS_ID).map(rowOf);
}
