import type http from 'node:http';
import { sendTelemetry, type Family, type Labels } from '../common/telemetry.js';
import type { AgentModel } from './agent.js';
import type { NodeFleet } from './nodes.js';
import { ALL_NAMESPACES, type Workload } from './workload.js';

/**
 * `GET /v1/metrics`: the agent's own telemetry (no ACL: the API docs' table says "ACL Required:
 * none"), the in-memory sink's JSON without a format (any other value of `format` too, as the
 * handler only tests for `prometheus`), the Prometheus text with `format=prometheus`. Every series
 * carries the agent's `host` label. Keys checked against the docs' metrics reference
 * (developer.hashicorp.com nomad/docs/reference/metrics): nomad.nomad.blocked_evals.total_blocked,
 * nomad.nomad.plan.queue_depth, nomad.nomad.plan.wait_for_index, nomad.nomad.heartbeat.active,
 * nomad.license.expiration_time_epoch (Enterprise servers; the community edition, which answers its
 * licence with 204, has none).
 *
 * The blocked evaluations tracker, the plan queue and the heartbeat timers live on the leader: a
 * follower reports its disabled queues as empty and serves no plan timings. A client-only agent
 * serves none of the server families.
 */
export interface MetricsContext {
  agent: AgentModel;
  fleet: NodeFleet;
  workload: Workload;
}

export function sendMetrics(ctx: MetricsContext, query: URLSearchParams, res: http.ServerResponse): void {
  sendTelemetry(res, query.get('format') === 'prometheus', agentFamilies(ctx));
}

export function agentFamilies({ agent, fleet, workload }: MetricsContext): Family[] {
  const host: Labels = { host: agent.name };
  const gauge = (name: string, value: number): Family => ({ name, type: 'gauge', samples: [{ labels: host, value }] });
  const families: Family[] = [];
  if (agent.license) families.push(gauge('nomad.license.expiration_time_epoch', Math.floor(agent.license.expiresAtMs / 1000)));
  if (!agent.isServer) return families;
  const leader = agent.raftState() === 'Leader';
  const onLeader = (value: () => number): number => (leader ? value() : 0);
  families.push(
    gauge(
      'nomad.nomad.blocked_evals.total_blocked',
      onLeader(() => workload.countEvals(ALL_NAMESPACES, (ev) => ev.Status === 'blocked')),
    ),
    gauge(
      'nomad.nomad.plan.queue_depth',
      onLeader(() => agent.telemetry.planQueueDepth),
    ),
    gauge(
      'nomad.nomad.heartbeat.active',
      onLeader(() => fleet.counts().ready ?? 0),
    ),
  );
  if (leader) families.push({ name: 'nomad.nomad.plan.wait_for_index', type: 'summary', samples: [{ labels: host, timer: agent.telemetry.planWaitForIndex }] });
  return families;
}
