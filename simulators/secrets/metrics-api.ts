import type http from 'node:http';
import { sendJson, sendText } from '../common/http.js';
import { sendTelemetry } from '../common/telemetry.js';
import { SEALED } from './api-error.js';
import type { ClusterModel } from './cluster.js';
import type { SimNode } from './nodes.js';
import { nodeFamilies } from './telemetry-families.js';

export const METRICS_PATH = '/v1/sys/metrics';

/**
 * `GET sys/metrics` at a node's own address: the node's own telemetry, never forwarded (the server
 * mounts it with handleLogicalNoForward). As the server does it:
 * - `format=prometheus`, or an Accept header asking for OpenMetrics (metricsutil.FormatFromRequest),
 *   answers the text exposition; no format answers the in-memory sink's JSON; any other format 400
 *   `metric response format "x" unknown` (metricsutil.ResponseForFormat), as bare text.
 * - It takes a token that may read `sys/metrics` (every token of this simulator: it models no
 *   policies), else 403 with the server's error body; with `unauthenticated_metrics_access` set on
 *   the node's listener it takes none (http/sys_metrics.go handleMetricsUnauthenticated).
 * - A sealed node answers 503 as to every request that needs a token: the Prometheus target goes down,
 *   which is what a health probe looks for. The unauthenticated handler does not look at the seal,
 *   so a node configured so keeps answering, with `vault_core_unsealed` 0.
 * - It answers even while the node's audit devices are blocked. The real server audits this request
 *   too (through the logical handler), so it would hang or fail with the rest; the simulator exempts
 *   it on purpose, so that a scraper sees `vault_audit_log_request_failure` rise during the fault
 *   instead of losing the target, which is the signal an alert rule on that counter needs. The
 *   unauthenticated path is not audited on the real server either.
 */
export function sendMetrics(
  cluster: ClusterModel,
  node: SimNode,
  method: string,
  query: URLSearchParams,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  authorized: () => boolean,
): void {
  const open = node.telemetry.unauthenticatedMetricsAccess;
  if (!open && (cluster.sealed || node.sealed)) return sendJson(res, 503, { errors: [SEALED] });
  if (method !== 'GET') return sendJson(res, 405, { errors: [] });
  if (!open && !authorized()) return sendJson(res, 403, { errors: ['permission denied'] });
  const format = query.get('format') || (/application\/openmetrics-text/.test(req.headers.accept ?? '') ? 'prometheus' : '');
  if (format !== '' && format !== 'prometheus') return sendText(res, 400, `metric response format "${format}" unknown`);
  sendTelemetry(res, format === 'prometheus', nodeFamilies(cluster, node, new Date()));
}
