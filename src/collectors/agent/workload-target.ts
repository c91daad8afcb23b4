import { z } from 'zod';
import { duration, keptAtMost, schedule } from '../../config-fields/fields.js';
import type { UpstreamError } from '../../upstream/errors.js';
import type { NextTokenPaging } from './next-token-pages.js';

/**
 * What an agent target reads of the region's workload (the jobs, evaluations and deployments
 * listings, each behind its own switch) and what it keeps of it. Every server agent answers the same
 * listings: switch them on for one or two agents of a region, not all.
 */
export const workloadField = z
  .strictObject({
    /** The listings run on their own schedule: a region's jobs cost more than the agent's own answers. */
    schedule: schedule('*/30 * * * * *'),
    /** per_page of each page of a listing. */
    page_size: z.number().int().min(1).max(5_000).default(500),
    /** Pages of one listing: beyond it the listing fails (max_pages x page_size items at most). */
    max_pages: z.number().int().min(1).max(10_000).default(100),
    /** Jobs with series of their own (failing, queued, dead): the urgent first, the others counted as dropped. */
    max_jobs: keptAtMost(1_000, 100_000),
    /** Combinations of namespace and type counted in scheduler_jobs and scheduler_allocations. */
    max_job_groups: keptAtMost(1_000, 100_000, 1),
    /** How far back failed and lost allocations are added up for scheduler_job_allocations_failing. */
    failure_window: duration('15m'),
    /** Jobs with blocked evaluations given a series of their own. */
    max_blocked_jobs: keptAtMost(500, 100_000),
    /** Jobs whose latest deployment runs or failed given series of their own (failed first). */
    max_deployments: keptAtMost(500, 100_000),
    /** Task groups of one deployment with series of their own. */
    max_deployment_groups: keptAtMost(50, 1_000, 1),
  })
  .prefault({});

export type WorkloadBounds = z.output<typeof workloadField>;

/** How a workload listing is paged: the block's page size and bound, the endpoint's query. */
export const workloadPaging = (id: string, w: WorkloadBounds, query: Readonly<Record<string, string>>): NextTokenPaging => ({
  id,
  query,
  pageSize: w.page_size,
  maxPages: w.max_pages,
  maxPagesKey: 'workload.max_pages',
});

/**
 * What each workload listing declares alike: its paging for the docs, the capability it needs on
 * the namespaces it sees, and a token refused outright (403) as "not applicable", on by default.
 */
export const workloadListing = (capability: string, what: string) =>
  ({
    paged: '`per_page` (workload.page_size), then the `next_token` header, up to workload.max_pages',
    needs: `${capability} (on every namespace to be seen: a token that may read some sees only those)`,
    notApplicable: { test: (err: UpstreamError) => err.status === 403, means: `the token may not read ${what} (403 without ${capability})` },
    default: true,
  }) as const;
