import type http from 'node:http';
import { sendJson } from '../common/http.js';
import type { ClusterModel } from './cluster.js';
import { activeNode, type AuditMode, type SimNode } from './nodes.js';

/**
 * A node's audit devices: `ok`, or every device blocked, so that a request the server audits hangs
 * (`hang`: a full disk, a socket or syslog that stops reading) or fails (`error`: a device that
 * refuses, answered 500 "internal error" as the server does when no device logged the request:
 * hashicorp/vault#15932, where `vault login`'s lookup-self got exactly that). The paths the service
 * never audits answer as ever: a blocked node looks healthy to sys/health.
 */
/** Paths the service documents as never audited (the seal's and HA's status, health, leader), and the seal endpoints. */
const UNAUDITED = new Set([
  '/v1/sys/health',
  '/v1/sys/leader',
  '/v1/sys/seal-status',
  '/v1/sys/ha-status',
  '/v1/sys/seal-backend-status',
  '/v1/sys/seal',
  '/v1/sys/unseal',
  '/v1/sys/step-down',
  '/v1/sys/init',
]);

/** How long a hung request is held at most: bounded, so a client that never gives up does not keep a socket for ever. */
const HANG_MS = 300_000;

/** A plain standby forwards what it is asked to the active node, whose devices then decide; a performance standby audits reads itself. */
function modeAt(cluster: ClusterModel, node: SimNode): AuditMode {
  if (node.audit !== 'ok') return node.audit;
  const active = activeNode(cluster.nodes, cluster.sealed);
  return active && active !== node && node.standbyKind === 'standby' ? active.audit : 'ok';
}

/** Answers (or holds) a request the node's blocked audit devices do not let it serve; false when the request goes on. */
export function blockedByAudit(cluster: ClusterModel, node: SimNode, path: string, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (UNAUDITED.has(path)) return false;
  const mode = modeAt(cluster, node);
  if (mode === 'ok') return false;
  // The device refused (or never took) the request's entry: one request failure in the node's telemetry.
  node.telemetry.auditRequestFailures += 1;
  if (mode === 'error') {
    sendJson(res, 500, { errors: ['internal error'] });
    return true;
  }
  const timer = setTimeout(() => req.socket.destroy(), HANG_MS);
  timer.unref();
  res.on('close', () => clearTimeout(timer));
  return true;
}
