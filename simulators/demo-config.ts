import type { AgentSimulator } from './agent/index.js';
import { DEMO_NODES_CLUSTER, type SecretsSimulator } from './secrets/index.js';
import type { TeamsSimulator } from './teams/index.js';

/** Paths of the secret files the demo writes for vigil to read. */
export interface DemoSecrets {
  drOperationTokenFile: string;
  agentTokenFile: string;
  teamsTokenFile: string;
  /** The token of the cluster of three nodes, when there is one: reading its HA status and autopilot finds its nodes. */
  nodesTokenFile?: string;
  alertStore: string;
  /** Token files by cluster name: with one, vigil reads the cluster's node list and polls every node. */
  secretsTokenFiles?: Readonly<Record<string, string>>;
}

export interface DemoUpstreams {
  secrets: SecretsSimulator;
  agents: AgentSimulator;
  teams: TeamsSimulator;
  organization: string;
}

/**
 * vigil's configuration for the demo: every simulated upstream as a target, on schedules short
 * enough to watch faults come and go.
 */
export function demoConfig({ secrets, agents, teams, organization }: DemoUpstreams, files: DemoSecrets): string {
  const secretsTargets = [...secrets.clusters.values()]
    .map((c) => {
      const merkle =
        c.name === 'dr-secondary' ? `    merkle_check:\n      dr_operation_token_file: ${files.drOperationTokenFile}\n      schedule: "*/30 * * * * *"\n` : '';
      const file = files.secretsTokenFiles?.[c.name] ?? (c.name === DEMO_NODES_CLUSTER ? files.nodesTokenFile : undefined);
      const token = file ? `    token_file: ${file}\n` : '';
      // The simulated nodes listen on loopback: the token may go to them, so each is asked what it audits.
      const audit = c.name === DEMO_NODES_CLUSTER ? '    nodes:\n      audit_check: { timeout: 1s, send_token_to: ["127.0.0.1"] }\n' : '';
      const snapshots = c.name === DEMO_NODES_CLUSTER ? `    snapshots:\n      names: [daily, hourly]\n      schedule: "*/5 * * * * *"\n` : '';
      return `  - name: ${c.name}\n    address: ${c.url}\n    schedule: "*/5 * * * * *"\n    timeout: 2s\n${token}${merkle}${audit}${snapshots}`;
    })
    .join('');
  const agentTargets = [...agents.agents.values()]
    .map(
      (a) =>
        `  - name: ${a.name}\n    address: ${a.url}\n    token_file: ${files.agentTokenFile}\n    schedule: "*/5 * * * * *"\n    timeout: 2s\n    host: true\n    expected_servers: 1\n    workload:\n      schedule: "*/5 * * * * *"\n`,
    )
    .join('');
  return `# Written by the demo: vigil watching the bundled simulators.
web:
  listen_address: 127.0.0.1:9810
secrets:
${secretsTargets}agents:
${agentTargets}teams:
  # The organization token sees every team; a member token would undercount secret teams.
  # complete_access: list answers of this service omit newer organization-access flags.
  - name: ${organization}
    address: ${teams.url}
    organization: ${organization}
    token_file: ${files.teamsTokenFile}
    schedule: "*/30 * * * * *"
    complete_access: true
alert_sink:
  store: { path: ${files.alertStore} }
`;
}
