import { z } from 'zod';
import { foldLabelValue } from '../../support/label-value.js';
import { decode } from '../../upstream/decode.js';
import { parseBody, textOf } from '../../upstream/parse.js';
import { lenient } from '../../upstream/schema-helpers.js';

/**
 * One page of `GET /v1/deployments?namespace=*`, read down to what the tally keeps. A deployment's
 * job, status and create index are essential (the latest of a job is the one created last); a task
 * group's counts cost only their series.
 */
const count = lenient(z.number().int().nonnegative());
const text = lenient(z.string());

const taskGroup = z.object({ DesiredTotal: count, PlacedAllocs: count, HealthyAllocs: count, UnhealthyAllocs: count });

export const deploymentsPage = z
  .array(
    z.object({
      Namespace: text,
      JobID: z.string(),
      Status: z.string(),
      CreateIndex: z.number().int().nonnegative(),
      TaskGroups: lenient(z.record(z.string(), taskGroup)),
    }),
  )
  .nullish()
  .transform((v) => v ?? []);

/** The per-group states kept, as the `state` label says them. */
export const DEPLOYMENT_STATES = ['desired', 'placed', 'healthy', 'unhealthy'] as const;
const GROUP_KEYS = ['DesiredTotal', 'PlacedAllocs', 'HealthyAllocs', 'UnhealthyAllocs'] as const;

/** The statuses whose task groups get series: a deployment under way, or one that failed. */
export const WATCHED_DEPLOYMENTS = new Set(['running', 'failed']);

export interface DeploymentRow {
  readonly namespace: string;
  readonly job: string;
  readonly status: string;
  readonly createIndex: number;
  /** Allocations the deployment wants over all its task groups. */
  readonly desired: number;
  /** Each group's counts by DEPLOYMENT_STATES (absent where the answer left one out), for the statuses watched only. */
  readonly groups: ReadonlyArray<{ name: string; counts: ReadonlyArray<number | undefined> }>;
}

export const DEPLOYMENTS_ID = 'agent/deployments';

/** A page's deployments as rows. Pure, so that a large page is decoded on a worker thread. */
export function decodeDeploymentsPage({ body }: { body: Uint8Array }): DeploymentRow[] {
  return parseBody(deploymentsPage, decode(textOf(body), DEPLOYMENTS_ID), DEPLOYMENTS_ID).map((d) => {
    const groups = Object.entries(d.TaskGroups ?? {});
    const status = foldLabelValue(d.Status);
    return {
      namespace: foldLabelValue(d.Namespace || 'default'),
      job: foldLabelValue(d.JobID),
      status,
      createIndex: d.CreateIndex,
      desired: groups.reduce((sum, [, g]) => sum + (g.DesiredTotal ?? 0), 0),
      groups: WATCHED_DEPLOYMENTS.has(status) ? groups.map(([name, g]) => ({ name: foldLabelValue(name), counts: GROUP_KEYS.map((k) => g[k]) })) : [],
    };
  });
}
