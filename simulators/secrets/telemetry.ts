import type http from 'node:http';
import { SampledTimer, SteadyTimer } from '../common/telemetry.js';

/**
 * What one node's telemetry counts as it answers (requests by status code, their handling time,
 * audit failures) and the values only a fault sets (leases, tokens that never expire, raft's FSM
 * backlog, the WAL's latencies, a share of requests failing 500). Counters only rise: a node that
 * is killed and brought back has restarted, and starts from zero (`restartTelemetry`).
 */
export interface TelemetrySettings {
  /** Leases the expiration manager tracks (`vault.expire.num_leases`). */
  leases: number;
  /** Leases it gave up revoking (`vault.expire.num_irrevocable_leases`). */
  irrevocableLeases: number;
  /** Tokens that never expire, beside the cluster's own (counted as `creation_ttl="+Inf"`). */
  infiniteTokens: number;
  /** Raft log entries committed and not yet applied (`vault.raft_storage.stats.fsm_pending`). */
  fsmPending: number;
  /** Share (0 to 1) of the requests this node serves that answer 500 instead. */
  errorRate: number;
}

export interface NodeTelemetry {
  settings: TelemetrySettings;
  /** The node's listener config: `telemetry { unauthenticated_metrics_access = true }`. */
  unauthenticatedMetricsAccess: boolean;
  auditRequestFailures: number;
  auditResponseFailures: number;
  /** Requests answered, by status code. */
  readonly statusCodes: Map<number, number>;
  handleRequest: SampledTimer;
  walFlushReady: SteadyTimer;
  walPersistWals: SteadyTimer;
}

/** A healthy WAL: flushes ready and written well within a millisecond or two. */
export const WAL_DEFAULTS = { flushReadyMs: 0.2, persistWalsMs: 1.5 } as const;

export const defaultSettings = (): TelemetrySettings => ({ leases: 12, irrevocableLeases: 0, infiniteTokens: 0, fsmPending: 0, errorRate: 0 });

export function createTelemetry(unauthenticatedMetricsAccess = false): NodeTelemetry {
  return {
    settings: defaultSettings(),
    unauthenticatedMetricsAccess,
    auditRequestFailures: 0,
    auditResponseFailures: 0,
    statusCodes: new Map(),
    handleRequest: new SampledTimer(),
    walFlushReady: new SteadyTimer(WAL_DEFAULTS.flushReadyMs),
    walPersistWals: new SteadyTimer(WAL_DEFAULTS.persistWalsMs),
  };
}

/** A restarted node: its counters and timers start again; its config and the faults set on it stay. */
export function restartTelemetry(t: NodeTelemetry): void {
  const fresh = createTelemetry(t.unauthenticatedMetricsAccess);
  fresh.walFlushReady.set(t.walFlushReady.latencyMs);
  fresh.walPersistWals.set(t.walPersistWals.latencyMs);
  Object.assign(t, { ...fresh, settings: t.settings });
}

/** Counts the request by the status it is answered with, and how long the node took, once it is answered. */
export function countAnswer(t: NodeTelemetry, res: http.ServerResponse): void {
  const started = performance.now();
  res.once('finish', () => {
    t.statusCodes.set(res.statusCode, (t.statusCodes.get(res.statusCode) ?? 0) + 1);
    t.handleRequest.observe(performance.now() - started);
  });
}

/** Whether the 5xx fault picks this request to fail. */
export const failsNow = (t: NodeTelemetry): boolean => t.settings.errorRate > 0 && Math.random() < t.settings.errorRate;
