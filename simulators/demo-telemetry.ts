import type { AgentSimulator } from './agent/index.js';
import { pointedTelemetryJob, telemetryJobs, type TelemetryJob } from './alerting/telemetry-jobs.js';
import { DEMO_NODES_CLUSTER, type SecretsSimulator } from './secrets/index.js';

const host = (url: string) => new URL(url).host;

/**
 * The demo's Prometheus scrapes the upstreams' own telemetry beside vigil, with the shipped jobs of
 * deploy/prometheus/prometheus.yml pointed at the simulators: every node of the cluster vigil polls
 * node by node (`target` its name in vigil's config), and every agent (`region` the simulators'
 * one region). The optional rules of alerts/telemetry/ then run on them.
 */
export function demoTelemetryJobs(secrets: SecretsSimulator, agents: AgentSimulator, nodesTokenFile: string): TelemetryJob[] {
  const shipped = new Map(telemetryJobs().map((j) => [j.job_name, j]));
  const job = (name: string) => {
    const j = shipped.get(name);
    if (!j) throw new Error(`deploy/prometheus/prometheus.yml has no telemetry job ${name}`);
    return j;
  };
  return [
    pointedTelemetryJob(
      job('secrets-telemetry'),
      [...secrets.cluster(DEMO_NODES_CLUSTER).nodes.values()].map(host),
      { target: DEMO_NODES_CLUSTER },
      nodesTokenFile,
    ),
    pointedTelemetryJob(
      job('scheduler-telemetry'),
      [...agents.agents.values()].map((a) => host(a.url)),
      { region: 'global' },
    ),
  ];
}
