import { z } from 'zod';
import type { UpstreamClient } from '../client.js';
import { parseBody } from '../parse.js';
import { boolish, instant, lenient, statNumber } from '../schema-helpers.js';

/**
 * `GET /v1/sys/health` of one node. Unauthenticated and answered in the root namespace only, so
 * neither a token nor a namespace is sent. Every documented status code carries the same body: 200
 * active, 429 standby, 472 DR secondary, 473 performance standby, 474 a standby that cannot reach the
 * active node, 501 not initialized, 503 sealed, 530 removed from the cluster. They are answers, not
 * failures: the status is kept with the body, and the defaults are asked for explicitly, so a
 * load balancer's habit of `standbyok` cannot be what the node is judged by.
 */
export const HEALTH_STATUSES = [200, 429, 472, 473, 474, 501, 503, 530] as const;

/** The node's own roles, as its status code says them (the body's flags where the code does not). */
export const NODE_ROLES = ['active', 'standby', 'performance_standby', 'dr_secondary', 'removed'] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

const text = lenient(z.string());
const flag = lenient(boolish);

export const healthResponse = z.object({
  initialized: flag,
  sealed: flag,
  standby: flag,
  performance_standby: flag,
  replication_dr_mode: text,
  removed_from_cluster: flag,
  version: text,
  cluster_name: text,
  server_time_utc: statNumber,
  clock_skew_ms: statNumber,
  echo_duration_ms: statNumber,
  // The community edition answers `"license": {"state": "none", "expiry_time": ""}`: no expiry, no series.
  license: lenient(z.object({ state: text, expiry_time: lenient(instant), terminated: flag })),
});
export type HealthBody = z.output<typeof healthResponse>;

/** One node's health answer: its status code and body, what the node is made of both. */
export interface NodeHealth {
  status: number;
  body: HealthBody;
}

/** Query parameters naming each state's documented code, so the answer's code says the state whatever a default was changed to. */
export const HEALTH_QUERY: Readonly<Record<string, string>> = {
  standbyok: 'false',
  perfstandbyok: 'false',
  activecode: '200',
  standbycode: '429',
  drsecondarycode: '472',
  performancestandbycode: '473',
  haunhealthycode: '474',
  uninitcode: '501',
  sealedcode: '503',
  removedcode: '530',
};

export const HEALTH_ENDPOINT = 'sys/health';

export async function fetchNodeHealth(client: UpstreamClient, signal: AbortSignal): Promise<NodeHealth> {
  const res = await client.json({ endpoint: HEALTH_ENDPOINT, path: '/v1/sys/health', query: { ...HEALTH_QUERY }, dataStatuses: HEALTH_STATUSES, signal });
  return { status: res.status, body: parseBody(healthResponse, res.body ?? {}, HEALTH_ENDPOINT) };
}

const ROLE_OF_STATUS: Readonly<Record<number, NodeRole>> = {
  200: 'active',
  429: 'standby',
  472: 'dr_secondary',
  473: 'performance_standby',
  474: 'standby',
  530: 'removed',
};

/** The node's role: from its status code, or from the body's flags when the code is not one that names a role (a proxy's 200). */
export function nodeRole(h: NodeHealth): NodeRole | undefined {
  const b = h.body;
  if (b.removed_from_cluster === true) return 'removed';
  if (h.status === 501 || h.status === 503 || b.sealed === true || b.initialized === false) return undefined;
  if (h.status !== 200) return ROLE_OF_STATUS[h.status];
  if (b.performance_standby === true) return 'performance_standby';
  if (b.standby === true) return 'standby';
  if (b.replication_dr_mode === 'secondary') return 'dr_secondary';
  return b.standby === false ? 'active' : undefined;
}
