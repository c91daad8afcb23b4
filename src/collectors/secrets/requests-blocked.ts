import { family, single, type Family, type Labels } from '../../metrics/family.js';
import type { AuditedAnswer } from './audited-request.js';
import type { NodeHealth } from './node-health.js';

/**
 * Whether a cluster serves its clients, from an audited request beside the unaudited health: a node
 * that answers sys/health unsealed while the request it audits times out or fails with a server
 * error has audit devices that block it. Pure: the job hands it the answers it collected.
 */

/** The health codes of a node that serves: active, standby, DR secondary, performance standby (a standby that cannot reach the active node, 474, is not). */
const SERVING = new Set([200, 429, 472, 473]);

export const serves = (h: NodeHealth | undefined): boolean =>
  h !== undefined && SERVING.has(h.status) && h.body.sealed !== true && h.body.initialized !== false;

/** 1 blocked, 0 served; undefined when it cannot be told (the node did not answer its health, or is sealed, or the request failed otherwise). */
export function nodeBlocked(health: NodeHealth | undefined, audited: AuditedAnswer | undefined): boolean | undefined {
  if (!audited || !serves(health)) return undefined;
  return audited.blocked;
}

export interface RequestsBlocked {
  /** At the configured address, while some node serves; undefined when not asked or not told. */
  readonly cluster: boolean | undefined;
  readonly nodes: ReadonlyArray<{ readonly labels: Labels; readonly blocked: boolean }>;
}

const WHY =
  "an audited request (vigil's token's lookup-self) timed out (nodes.audit_check.timeout) or failed with a server error while sys/health, which is never audited, answers unsealed: every audit device blocks or refuses, and the service does not serve a request it cannot audit";

export const requestsBlockedFamilies: readonly Family<RequestsBlocked>[] = [
  family<RequestsBlocked>({
    name: 'secrets_requests_blocked',
    help: `1 when requests to the cluster's configured address are blocked: ${WHY} (on some node); 0 when the audited request was served (a refusal, 403, included); absent on targets without a token_file, with nodes.audit_check.enabled false, or while no node answers its health unsealed.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((v) => v.cluster),
  }),
  family<RequestsBlocked>({
    name: 'secrets_node_requests_blocked',
    help: `1 when the node's requests are blocked: at its own address, ${WHY}; 0 when served; absent for a node vigil does not send its token to (one neither listed, templated nor allowed by nodes.audit_check.send_token_to) and while the node is sealed or down.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'node', 'address'],
    samples: (v) => v.nodes.map((n) => ({ labels: n.labels, value: Number(n.blocked) })),
  }),
];
