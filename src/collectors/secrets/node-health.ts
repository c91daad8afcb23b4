import { family, single, stateSet, upFamily, type Family } from '../../metrics/family.js';
import { NODE_ROLES, nodeRole, type NodeHealth } from '../../upstream/secrets/node-health.js';

/** One node's `sys/health` answer, polled at the node's own address: pure mapping to samples. */

const NODE = ['target', 'node'] as const;
const FROM_HEALTH = "from the node's own sys/health answer";

export const nodeUp = upFamily({
  name: 'secrets_node_up',
  help: "1 when the node answered sys/health with one of its documented status codes (200, 429, 472, 473, 474, 501, 503, 530) and a readable body, else 0. `node` is the node's API address as vigil polls it.",
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
