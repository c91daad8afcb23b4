import { z } from 'zod';
import { family, single, stateSet, upFamily, type Family } from '../../metrics/family.js';
import { boolish, instant, lenient, statNumber } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';

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

const healthBody = z.object({
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
export type HealthBody = z.output<typeof healthBody>;
/** A body that says nothing (empty) is read as one without any of the fields: each series it would feed is absent. */
export const healthResponse = z.preprocess((b) => b ?? {}, healthBody);

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

/** One node's `sys/health` answer, polled at the node's own address: pure mapping to samples. */

const NODE = ['target', 'node', 'address'] as const;
const FROM_HEALTH = "from the node's own sys/health answer";

export const nodeUp = upFamily({
  name: 'secrets_node_up',
  help: "1 when the node answered sys/health with one of its documented status codes (200, 429, 472, 473, 474, 501, 503, 530) and a readable body, else 0. `node` is the node's name as the cluster reports it (its raft node ID, else its HA hostname, else its address), `address` the API address vigil polls it at.",
  section: 'secrets',
  labels: [...NODE],
});

export const nodeHealthFamilies: readonly Family<NodeHealth>[] = [
  family<NodeHealth>({
    name: 'secrets_node_initialized',
    help: `1 when the node is initialized, 0 when not (501); ${FROM_HEALTH}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...NODE],
    samples: single((h) => h.body.initialized ?? (h.status === 501 ? false : undefined)),
  }),
  family<NodeHealth>({
    name: 'secrets_node_sealed',
    help: `1 when the node is sealed (503), 0 when unsealed; ${FROM_HEALTH}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...NODE],
    samples: single((h) => h.body.sealed ?? (h.status === 503 ? true : undefined)),
  }),
  family<NodeHealth>({
    name: 'secrets_node_role',
    help: `1 for the role the node's answer says (200 active, 429 and 474 standby, 473 performance_standby, 472 dr_secondary, 530 removed), 0 for the others; all 0 while sealed or uninitialized; absent when the node is down; ${FROM_HEALTH}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...NODE, 'role'],
    samples: (h) => stateSet('role', NODE_ROLES, nodeRole(h)),
  }),
  family<NodeHealth>({
    name: 'secrets_node_info',
    help: `The node's version and cluster name (empty while sealed), value 1; absent when the answer names no version (an unknown version is no version skew); ${FROM_HEALTH}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...NODE, 'version', 'cluster_name'],
    samples: (h) => (h.body.version === undefined ? [] : [{ labels: { version: h.body.version, cluster_name: h.body.cluster_name ?? '' }, value: 1 }]),
  }),
  family<NodeHealth>({
    name: 'secrets_license_expiry_timestamp_seconds',
    help: `When the node's licence expires, as Unix time; absent when the answer reports no licence (community edition, older versions); ${FROM_HEALTH}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...NODE],
    samples: single((h) => h.body.license?.expiry_time),
  }),
];

/**
 * One node's own health, at the node's own address, with neither token nor namespace (the endpoint
 * is unauthenticated and answers in the root namespace only): every documented status code is an
 * answer, and an empty body reads as one that says nothing.
 */
export const nodeHealthEndpoint = endpoint({
  id: 'secrets/node-health',
  method: 'GET',
  path: '/v1/sys/health',
  schema: healthResponse,
  send: () => ({ query: HEALTH_QUERY }),
  dataStatuses: HEALTH_STATUSES,
  read: async (get): Promise<NodeHealth> => {
    const answer = await get();
    return { status: answer.status, body: answer.value };
  },
  needs: 'none: unauthenticated per the API',
  up: nodeUp,
  families: nodeHealthFamilies,
});
