import { badRequest, notFound, ok, type Reply } from './api-error.js';
import type { ClusterModel } from './cluster.js';
import type { SimNode } from './nodes.js';
import { optionalBool, optionalString, type Body } from './request-body.js';
import { defaultSettings, WAL_DEFAULTS, type TelemetrySettings } from './telemetry.js';

/**
 * The telemetry faults no other fault drives (the blocked audit devices and the failing snapshots
 * drive theirs): `POST /_sim/telemetry` with any of the keys below, on the node named by `"node"` or
 * on every node of the cluster; `DELETE /_sim/telemetry` puts every node's back to a healthy
 * cluster's (counters are left alone: they only rise, until the node restarts); `GET` shows them.
 */
type NumberKey = Exclude<keyof TelemetrySettings, 'errorRate'>;
const COUNTS: Record<string, NumberKey> = {
  leases: 'leases',
  irrevocable_leases: 'irrevocableLeases',
  infinite_tokens: 'infiniteTokens',
  fsm_pending: 'fsmPending',
};
const LATENCIES = { wal_flush_ready_ms: 'walFlushReady', wal_persist_wals_ms: 'walPersistWals' } as const;
const KEYS = ['node', ...Object.keys(COUNTS), ...Object.keys(LATENCIES), 'error_rate', 'unauthenticated_metrics_access'];

export const TELEMETRY_ADMIN_ROUTES: Array<{ method: string; pattern: string; handler: (c: ClusterModel, body: Body) => Reply }> = [
  { method: 'GET', pattern: 'telemetry', handler: (c) => ok(telemetryView(c)) },
  { method: 'POST', pattern: 'telemetry', handler: (c, body) => setTelemetry(c, body) },
  { method: 'DELETE', pattern: 'telemetry', handler: (c) => resetTelemetry(c) },
];

function setTelemetry(cluster: ClusterModel, body: Body): Reply {
  const unknown = Object.keys(body).find((k) => !KEYS.includes(k));
  if (unknown !== undefined) throw badRequest(`unknown key "${unknown}" (known: ${KEYS.join(', ')})`);
  if (Object.keys(body).every((k) => k === 'node')) throw badRequest(`say what to set: one of ${KEYS.slice(1).join(', ')}`);
  const nodes = targets(cluster, optionalString(body, 'node'));
  // Every value is checked before any node changes, so that a refused request changes nothing.
  const counts = Object.entries(COUNTS).flatMap(([key, field]) => (body[key] === undefined ? [] : [[field, count(body, key)] as const]));
  const latencies = Object.entries(LATENCIES).flatMap(([key, timer]) => (body[key] === undefined ? [] : [[timer, latency(body, key)] as const]));
  const rate = body.error_rate;
  if (rate !== undefined && (typeof rate !== 'number' || !(rate >= 0 && rate <= 1))) throw badRequest('"error_rate" must be a number from 0 to 1');
  const open = optionalBool(body, 'unauthenticated_metrics_access');
  for (const n of nodes) {
    const t = n.telemetry;
    for (const [field, value] of counts) t.settings[field] = value;
    for (const [timer, ms] of latencies) t[timer].set(ms);
    if (typeof rate === 'number') t.settings.errorRate = rate;
    if (open !== undefined) t.unauthenticatedMetricsAccess = open;
  }
  return ok(telemetryView(cluster));
}

function resetTelemetry(cluster: ClusterModel): Reply {
  for (const n of cluster.nodes.nodes) {
    n.telemetry.settings = defaultSettings();
    n.telemetry.walFlushReady.set(WAL_DEFAULTS.flushReadyMs);
    n.telemetry.walPersistWals.set(WAL_DEFAULTS.persistWalsMs);
  }
  return ok(telemetryView(cluster));
}

function targets(cluster: ClusterModel, id: string | undefined): SimNode[] {
  if (id === undefined) return cluster.nodes.nodes;
  const n = cluster.nodes.nodes.find((x) => x.id === id);
  if (!n) throw notFound(`no node "${id}" (have: ${cluster.nodes.nodes.map((x) => x.id).join(', ')})`);
  return [n];
}

function count(body: Body, key: string): number {
  const v = body[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw badRequest(`"${key}" must be an integer, not negative`);
  return v;
}

function latency(body: Body, key: string): number {
  const v = body[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw badRequest(`"${key}" must be a number of milliseconds, not negative`);
  return v;
}

function telemetryView(cluster: ClusterModel): Record<string, unknown> {
  return {
    nodes: cluster.nodes.nodes.map((n) => {
      const t = n.telemetry;
      return {
        id: n.id,
        unauthenticated_metrics_access: t.unauthenticatedMetricsAccess,
        leases: t.settings.leases,
        irrevocable_leases: t.settings.irrevocableLeases,
        infinite_tokens: t.settings.infiniteTokens,
        fsm_pending: t.settings.fsmPending,
        wal_flush_ready_ms: t.walFlushReady.latencyMs,
        wal_persist_wals_ms: t.walPersistWals.latencyMs,
        error_rate: t.settings.errorRate,
        audit_request_failures: t.auditRequestFailures,
        status_codes: Object.fromEntries(t.statusCodes),
      };
    }),
  };
}
