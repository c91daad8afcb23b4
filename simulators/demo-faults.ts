import type { AgentSimulator } from './agent/index.js';
import { DEMO_NODES_CLUSTER, DEMO_SEAL_BACKENDS, type SecretsSimulator } from './secrets/index.js';
import type { TeamsSimulator } from './teams/index.js';
import type { DemoFault } from './demo-fault.js';
import { workloadFaults } from './demo-workload-faults.js';

export type { DemoFault } from './demo-fault.js';

/** The faults the demo offers (see DemoFault), area by area. */
export function demoFaults(u: { secrets: SecretsSimulator; agents: AgentSimulator; teams: TeamsSimulator; organization: string }): DemoFault[] {
  return [
    ...secretsFaults(u.secrets),
    ...nodeFaults(u.secrets),
    ...snapshotFaults(u.secrets),
    ...agentFaults(u.agents),
    ...workloadFaults(u.agents),
    ...teamsFaults(u.teams, u.organization),
  ];
}

function secretsFaults(secrets: SecretsSimulator): DemoFault[] {
  const dp = secrets.cluster('dr-primary').url;
  const ds = secrets.cluster('dr-secondary').url;
  const pp = secrets.cluster('perf-primary').url;
  const ps = secrets.cluster('perf-secondary').url;
  const psToken = secrets.cluster('perf-secondary').rootToken;
  return [
    {
      what: 'disconnect the DR secondary',
      inject: `curl -XPOST ${dp}/_sim/replication/dr/secondaries/dr-secondary/disconnect -d '{}'`,
      clear: `curl -XPOST ${dp}/_sim/replication/dr/secondaries/dr-secondary/connect -d '{}'`,
      classes: ['secrets-disconnected'],
    },
    {
      what: 'let the performance secondary fall 5000 WAL entries behind',
      inject: `curl -XPOST ${pp}/_sim/replication/performance/wal/advance -d '{"by":5000,"secondaries_follow":false}'`,
      clear: `curl -XPOST ${pp}/_sim/replication/performance/wal/follow -d '{}'`,
      classes: ['secrets-wal-lag'],
    },
    {
      what: 'hang the performance secondary (accepts, never answers)',
      inject: `curl -XPOST ${ps}/_sim/faults -d '{"hang":true}'`,
      clear: `curl -XDELETE ${ps}/_sim/faults`,
      classes: ['secrets-hung'],
    },
    {
      what: 'seal the performance secondary',
      inject: `curl -XPOST ${ps}/_sim/seal -d '{"sealed":true}'`,
      clear: `curl -XPOST ${ps}/_sim/seal -d '{"sealed":false}'`,
      classes: ['secrets-secondary-sealed'],
    },
    {
      what: 'corrupt a merkle tree of the DR primary',
      inject: `curl -XPOST ${dp}/_sim/replication/dr/merkle/corrupt -d '{"tree":"3","pages":{"17":[1,2]}}'`,
      clear: `curl -XDELETE ${dp}/_sim/replication/dr/merkle/corrupt`,
      classes: ['secrets-merkle'],
    },
    {
      what: 'promote the performance secondary beside its primary (split brain)',
      inject: `curl -XPOST ${ps}/v1/sys/replication/performance/secondary/promote -H 'x-secrets-token: ${psToken}'`,
      clear: `curl -XPOST ${ps}/v1/sys/replication/performance/primary/demote -H 'x-secrets-token: ${psToken}'`,
      classes: ['secrets-split-brain', 'secrets-disconnected'],
    },
    {
      what: 'start a DR operation token attempt on the DR secondary',
      inject: `curl -XPOST ${ds}/_sim/dr-token-attempt`,
      clear: `curl -XDELETE ${ds}/_sim/dr-token-attempt`,
      classes: ['secrets-dr-token-attempt'],
    },
  ];
}

/** The faults of one node of the cluster of three, each a voter: what they page follows the paging matrix. */
function nodeFaults(secrets: SecretsSimulator): DemoFault[] {
  const c = DEMO_NODES_CLUSTER;
  const node = (id: string, set: string, unset: string) => ({
    inject: `curl -XPOST ${secrets.cluster(c).url}/_sim/nodes/${id} -d '${set}'`,
    clear: `curl -XPOST ${secrets.cluster(c).url}/_sim/nodes/${id} -d '${unset}'`,
  });
  const sim = `${secrets.cluster(c).url}/_sim`;
  return [
    {
      what: `seal the standby node-2 of ${c} (a sealed voter also leaves the quorum one voter from its end)`,
      ...node('node-2', '{"sealed":true}', '{"sealed":false}'),
      classes: ['secrets-node-sealed', 'secrets-raft-tolerance-lost', 'secrets-raft-server-unhealthy'],
    },
    {
      what: `kill the voter node-3 of ${c}`,
      ...node('node-3', '{"dead":true}', '{"dead":false}'),
      classes: ['secrets-raft-tolerance-lost', 'secrets-raft-server-unhealthy', 'secrets-node-unreachable'],
    },
    {
      // Each move held for two of the demo's 5 s node polls: a change between two polls is not seen.
      what: `move the leadership of ${c} four times (it warns for the hour the changes are counted over)`,
      inject: `for i in 1 2 3 4; do curl -XPOST ${sim}/leader -d '{}'; sleep 11; done`,
      clear: `curl -XPOST ${sim}/leader -d '{"node":"node-1"}'`,
      classes: ['secrets-leadership-churn'],
    },
    {
      what: `block the audit devices of the active node-1 of ${c} (what it audits hangs while every node answers sys/health)`,
      ...node('node-1', '{"audit":"hang"}', '{"audit":"ok"}'),
      classes: ['secrets-requests-blocked'],
    },
    {
      what: `bring the licence of ${c} within 3 days of its end`,
      inject: `curl -XPOST ${sim}/license -d '{"expires_in_seconds":259200}'`,
      clear: `curl -XPOST ${sim}/license -d '{"expires_in_seconds":31536000}'`,
      classes: ['secrets-license-days'],
    },
    {
      what: `leave node-3 of ${c} behind in an upgrade`,
      ...node('node-3', '{"version":"1.16.9+ent"}', '{"version":"1.17.3+ent"}'),
      classes: ['secrets-node-version-skew'],
    },
    ...sealFaults(node),
  ];
}

/** The unseal and Seal HA faults of the cluster of three, whose seals are DEMO_SEAL_BACKENDS. */
function sealFaults(node: (id: string, set: string, unset: string) => { inject: string; clear: string }): DemoFault[] {
  const last = DEMO_SEAL_BACKENDS.at(-1) ?? '';
  const down = (names: string[]) => `{"unhealthy_seal_backends":${JSON.stringify(names)}}`;
  return [
    {
      what: `leave the unseal of node-2 of ${DEMO_NODES_CLUSTER} stuck at 1 key share of 3 (a sealed voter: the quorum is one voter from its end)`,
      ...node('node-2', '{"unseal_progress":1}', '{"unseal_progress":0}'),
      classes: ['secrets-node-sealed', 'secrets-raft-tolerance-lost', 'secrets-raft-server-unhealthy'],
    },
    {
      what: `fail the seal backend ${last} of node-3 of ${DEMO_NODES_CLUSTER} (Seal HA: its other seal still works)`,
      ...node('node-3', down([last]), down([])),
      classes: ['secrets-seal-backend-unhealthy'],
    },
    {
      what: `fail every seal backend of node-2 of ${DEMO_NODES_CLUSTER} (${DEMO_SEAL_BACKENDS.join(' and ')}: a restart would leave it sealed)`,
      ...node('node-2', down(DEMO_SEAL_BACKENDS), down([])),
      classes: ['secrets-seal-backends-unhealthy'],
    },
  ];
}

/** The automated snapshots of the cluster of three (a daily and an hourly one): failing, and stalled. */
function snapshotFaults(secrets: SecretsSimulator): DemoFault[] {
  const c = DEMO_NODES_CLUSTER;
  const sim = `${secrets.cluster(c).url}/_sim/snapshots`;
  return [
    {
      what: `fail the hourly automated snapshot of ${c} three times in a row (its S3 bucket refuses the upload)`,
      inject: `curl -XPOST ${sim}/hourly -d '{"failing":true,"attempts":3}'`,
      clear: `curl -XPOST ${sim}/hourly -d '{"failing":false}'`,
      classes: ['secrets-snapshot-failing'],
    },
    {
      what: `stall the daily automated snapshot of ${c} (no attempt since its last success, 2 days ago)`,
      inject: `curl -XPOST ${sim}/daily -d '{"stalled":true,"stalled_for_seconds":172800}'`,
      clear: `curl -XPOST ${sim}/daily -d '{"stalled":false}'`,
      classes: ['secrets-snapshot-stale'],
    },
  ];
}

function agentFaults(agents: AgentSimulator): DemoFault[] {
  const server = agents.agent('server-1').url;
  const client = agents.agent('client-1').url;
  return [
    {
      what: 'fail a gossip member',
      inject: `curl -XPOST ${server}/_sim/members/server-2.global -d '{"status":"failed"}'`,
      clear: `curl -XPOST ${server}/_sim/members/server-2.global -d '{"status":"alive"}'`,
      classes: ['agent-member-failed'],
    },
    {
      what: 'make the client agent unhealthy',
      inject: `curl -XPOST ${client}/_sim/health -d '{"client":{"ok":false,"message":"demo: unhealthy"}}'`,
      clear: `curl -XDELETE ${client}/_sim/health`,
      classes: ['agent-unhealthy'],
    },
    {
      what: 'hang the server agent',
      inject: `curl -XPOST ${server}/_sim/faults -d '{"hang":true}'`,
      clear: `curl -XDELETE ${server}/_sim/faults`,
      classes: ['agent-hung'],
    },
    {
      what: 'lose the raft leader',
      inject: `curl -XPOST ${server}/_sim/raft -d '{"state":"Candidate","last_contact":"15s"}'`,
      clear: `curl -XDELETE ${server}/_sim/raft`,
      classes: ['agent-no-leader', 'agent-unhealthy'],
    },
    {
      what: "kill two of the region's six raft servers: no failure tolerated",
      inject: ['server-5', 'server-6'].map((n) => `curl -XPOST ${server}/_sim/autopilot/servers/${n}.global -d '{"killed":true}'`).join(' && '),
      clear: `curl -XDELETE ${server}/_sim/autopilot`,
      classes: ['agent-no-tolerance', 'agent-server-unhealthy'],
    },
    {
      what: 'let a raft voter trail the leader by 5000 log entries',
      inject: `curl -XPOST ${server}/_sim/autopilot/servers/server-2.global -d '{"lag":5000}'`,
      clear: `curl -XDELETE ${server}/_sim/autopilot`,
      classes: ['agent-server-unhealthy'],
    },
    {
      what: 'flap the raft leader every 20 seconds',
      inject: `curl -XPOST ${server}/_sim/autopilot/flap -d '{"every_ms":20000}'`,
      clear: `curl -XPOST ${server}/_sim/autopilot/flap -d '{"every_ms":null}'`,
      classes: ['agent-leader-flapping'],
    },
    {
      what: 'take the 3 client nodes of pool default down (the region lists 6, in pools default and batch)',
      inject: `curl -XPOST ${server}/_sim/nodes/down -d '{"pool":"default","count":3}'`,
      clear: `curl -XDELETE ${server}/_sim/nodes`,
      classes: ['nodes-pool-down', 'nodes-down-long'],
    },
    {
      what: "fill the client host's disk",
      inject: `curl -XPOST ${client}/_sim/host/disk -d '{"mount":"/","used_mb":50000}'`,
      clear: `curl -XDELETE ${client}/_sim/host/disk`,
      classes: ['agent-disk-full'],
    },
  ];
}

function teamsFaults(teams: TeamsSimulator, organization: string): DemoFault[] {
  return [
    {
      what: 'hang the team-management service',
      inject: `curl -XPOST ${teams.url}/_sim/faults -d '{"hang":true}'`,
      clear: `curl -XDELETE ${teams.url}/_sim/faults`,
      classes: ['teams-down'],
      pollSeconds: 30,
    },
    {
      what: 'drop every member of the owners team',
      inject: `curl -XPOST ${teams.url}/_sim/team-users -d '{"organization":"${organization}","team":"owners","count":0}'`,
      clear: `curl -XPOST ${teams.url}/_sim/team-users -d '{"organization":"${organization}","team":"owners","count":5}'`,
      classes: ['teams-owners-dropped'],
      pollSeconds: 30,
    },
  ];
}
