import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mixinDashboards } from '../../scripts/mixin/dashboards.js';
import { FAILURE_CLASSES } from '../../simulators/alerting/failure-classes/index.js';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { tempFile } from '../helpers/daemon.js';
import { startVigil, type VigilProcess } from '../helpers/process.js';
import { substituteGrafanaVariables } from '../helpers/promql.js';
import { startNginx, type Nginx } from '../helpers/nginx.js';
import { deployedAlertmanager, deployedPrometheus, writeScaledRules } from '../helpers/shipped-alerting.js';
import { startSwitchableProxy, type SwitchableProxy } from '../helpers/switchable-proxy.js';
import { freePort, startAlertmanager, startPrometheus, type Service } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';
import { notified, standIn } from '../helpers/stand-in-receiver.js';

/**
 * The shipped alerting as users deploy it, end to end: alerts/*.rules.yml (every `for:` divided
 * by ten), the `vigil` job of deploy/prometheus/prometheus.yml and deploy/alertmanager/alertmanager.yml
 * (every wait and interval divided by ten), read from the files now, in a real Prometheus and a real
 * Alertmanager, with two vigils polling the same simulated upstreams, a stand-in pager and a
 * stand-in heartbeat receiver. Every `live` row of docs/paging.md is produced here by a fault.
 */
const FACTOR = 10;
const SINK_TOKEN = 'e2e-sink-token-0123456789abcdef';

let secrets: SecretsSimulator;
let agents: AgentSimulator;
let teams: TeamsSimulator;
let teamsDown: TeamsSimulator;
let secretsProxy: SwitchableProxy;
let agentProxy: SwitchableProxy;
/** One nginx in front of two primaries of different sets, under /a/ and /b/ (the control secrets-proxy-sets). */
let sharedProxy: Nginx;
const BEHIND_SHARED_PROXY: Record<string, string> = { 'p-east': '/a', 'p-west': '/b' };
/**
 * Clusters of three nodes (all raft voters, Seal HA over two backends) polled with a token that
 * reads their HA status and autopilot, their nodes every 2 s: n-sealed (a sealed standby, a licence
 * near its end, a node whose every seal backend fails) and n-voter (a dead voter, leadership moving
 * between the other two, a seal backend failing on one node).
 */
const NODE_CLUSTERS = ['n-sealed', 'n-voter'];
let vigilA: VigilProcess;
let vigilB: VigilProcess;
let urlA = '';
let urlB = '';
let prometheus: Service;
let alertmanager: Service;
/** When the first test began: vigil had listed the teams by then. */
/** Teams of the organization whose loss pages (TeamsCountDropped). */
const DROP_ORG_TEAMS = 10;
const rulesDir = tempDir('vigil-e2e-rules-');

const pager = standIn();
const heartbeat = standIn();

const post = async (url: string, body?: unknown, method = 'POST', headers: Record<string, string> = {}) => {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res;
};

function vigilConfig(withSink: boolean): string {
  const every = '"*/1 * * * * *"';
  const agentToken = tempFile('agent-token', agents.readToken);
  const wrongToken = tempFile('wrong-token', 'not-a-token-of-this-cluster');
  const teamsToken = tempFile('teams-token', teams.ownerToken('drop-org'));
  const drToken = tempFile('dr-token', secrets.cluster('dr-secondary').drOperationToken());
  const downToken = tempFile('teams-down-token', teamsDown.ownerToken('down-org'));
  const secretsTarget = (name: string, url: string) =>
    `  - { name: ${name}, address: "${url}", schedule: ${every}, timeout: 800ms${
      NODE_CLUSTERS.includes(name) ? `, token_file: ${tempFile(`${name}-token`, secrets.cluster(name).rootToken)}, nodes: { schedule: "*/2 * * * * *" }` : ''
    } }`;
  const agentTarget = (name: string, url: string, token = agentToken) =>
    `  - { name: ${name}, address: "${url}", token_file: ${token}, schedule: ${every}, timeout: 800ms, host: true, expected_servers: 1, nodes_schedule: "*/5 * * * * *" }`;
  return [
    'secrets:',
    ...[...secrets.clusters.values()]
      .filter((c) => !['x-unreachable', 'dr-secondary'].includes(c.name) && !(c.name in BEHIND_SHARED_PROXY))
      .map((c) => secretsTarget(c.name, c.url)),
    // Control: two primaries of different sets at one proxy's host and port, never a split brain.
    ...Object.entries(BEHIND_SHARED_PROXY).map(([name, prefix]) => secretsTarget(name, `${sharedProxy.url}${prefix}`)),
    // The merkle check feeds the dashboards' corruption panels.
    `${secretsTarget('dr-secondary', secretsUrl('dr-secondary'))}`.replace(
      / }$/,
      `, merkle_check: { dr_operation_token_file: ${drToken}, schedule: "*/10 * * * * *", timeout: 5s } }`,
    ),
    secretsTarget('x-unreachable', secretsProxy.url),
    'agents:',
    ...[...agents.agents.values()].filter((a) => a.name !== 'a-unreachable').map((a) => agentTarget(a.name, a.url)),
    agentTarget('a-unreachable', agentProxy.url),
    // Control: a token without the policy (403 on members, servers, self) is the operator's, never a page.
    agentTarget('a-denied', agents.agent('a-quiet').url, wrongToken),
    'teams:',
    `  - { name: drop-org, address: "${teams.url}", organization: drop-org, token_file: ${teamsToken}, schedule: "*/2 * * * * *", requests_per_second: 100 }`,
    `  - { name: acme, address: "${teams.url}", organization: acme, token_file: ${tempFile('acme-token', teams.ownerToken('acme'))}, schedule: "*/5 * * * * *", complete_access: true, requests_per_second: 100 }`,
    `  - { name: teams-down, address: "${teamsDown.url}", organization: down-org, token_file: ${downToken}, schedule: "*/2 * * * * *", timeout: 800ms }`,
    ...(withSink
      ? ['alert_sink:', `  bearer_token_file: ${tempFile('sink-token', SINK_TOKEN)}`, `  store: { path: ${join(tempDir('vigil-e2e-store-'), 'alerts.db')} }`]
      : []),
    '',
  ].join('\n');
}

async function startVigilOn(withSink: boolean): Promise<[VigilProcess, string]> {
  const port = await freePort();
  const v = startVigil([
    `--config.file=${tempFile('vigil.yml', vigilConfig(withSink))}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.format=json',
    '--log.level=warn',
  ]);
  await waitFor('vigil ready', async () => ((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok ? true : undefined), 60_000);
  return [v, `127.0.0.1:${port}`];
}

beforeAll(async () => {
  secrets = await startSecretsSimulator(
    {
      clusters: [
        ...['dr-primary', 'dr-secondary', 'perf-primary', 'perf-secondary', 'sealed-primary', 'sealed-secondary'],
        ...['x-unreachable', 'x-hung', 'x-5xx', 'x-sealed', 'x-denied', 'x-garbage'],
        ...Object.keys(BEHIND_SHARED_PROXY),
      ]
        .map((name) => ({ name }))
        // Seal HA over two backends: a backend of n-voter fails alone, every backend of a node of n-sealed together.
        .concat(NODE_CLUSTERS.map((name) => ({ name, sealBackends: ['hsm', 'transit'] }))),
      replication: [
        { kind: 'dr', primary: 'dr-primary', secondaries: ['dr-secondary'] },
        { kind: 'performance', primary: 'perf-primary', secondaries: ['perf-secondary'] },
        // DR, so the performance split brain of the faults below cannot hide a false one here.
        ...Object.keys(BEHIND_SHARED_PROXY).map((primary) => ({ kind: 'dr' as const, primary, secondaries: [] })),
        // A set of its own, so that its secondary's seal is not mixed up with the split brain's promotion.
        { kind: 'performance', primary: 'sealed-primary', secondaries: ['sealed-secondary'] },
      ],
    },
    { walTickMs: 1000 },
  );
  agents = await startAgentSimulator({
    agents: [
      { name: 'server-1', role: 'both', members: 6, allocations: 3 },
      { name: 'client-1', role: 'client', allocations: 7 },
      { name: 'east-1', role: 'server', region: 'east', members: 3 },
      { name: 'a-lonely', role: 'client' },
      { name: 'a-hung', role: 'client' },
      { name: 'a-unreachable', role: 'client' },
      { name: 'a-quiet', role: 'client' },
    ],
    acl: { enabled: true },
  });
  // acme: an organization of the demo's size, whose access holders break rules (the dashboards' data).
  teams = await startTeamsSimulator({
    organizations: [
      { name: 'drop-org', teams: DROP_ORG_TEAMS, seed: 3 },
      { name: 'acme', teams: 130, seed: 7 },
    ],
  });
  teamsDown = await startTeamsSimulator({ organizations: [{ name: 'down-org', teams: 5, seed: 4 }] });
  secretsProxy = await startSwitchableProxy(new URL(secrets.cluster('x-unreachable').url));
  agentProxy = await startSwitchableProxy(new URL(agents.agent('a-unreachable').url));
  sharedProxy = await startNginx(
    Object.fromEntries(Object.entries(BEHIND_SHARED_PROXY).map(([name, prefix]) => [`${prefix}/`, `${secrets.cluster(name).url}/`])),
  );
  for (const s of [pager.server, heartbeat.server]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));

  [[vigilA, urlA], [vigilB, urlB]] = await Promise.all([startVigilOn(true), startVigilOn(false)]);
  alertmanager = await startAlertmanager(
    deployedAlertmanager({
      urls: { vigil: `http://${urlA}/webhook/alertmanager`, pager: pager.url(), heartbeat: heartbeat.url() },
      tokenFile: tempFile('am-token', SINK_TOKEN),
      factor: FACTOR,
    }),
  );
  // Prometheus resends a firing alert every resend-delay (1m by default); 2s gets one through promptly.
  prometheus = await startPrometheus(
    deployedPrometheus({ targets: [urlA, urlB], ruleGlob: writeScaledRules(rulesDir, FACTOR), alertmanager: new URL(alertmanager.url).host, interval: '1s' }),
    ['--rules.alert.resend-delay=2s'],
  );
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  await alertmanager?.stop();
  await Promise.all([vigilA?.stop(), vigilB?.stop()]);
  await Promise.all([secrets?.close(), agents?.close(), teams?.close(), teamsDown?.close(), secretsProxy?.close(), agentProxy?.close(), sharedProxy?.stop()]);
  for (const s of [pager.server, heartbeat.server]) await new Promise((r) => s.close(r));
  // eslint-disable-next-line no-console -- the measured times to page, in the run's output
  console.log(`paging path, seconds per phase (for: and Alertmanager intervals divided by ${FACTOR}): ${JSON.stringify(timings)}`);
}, 60_000);

/** A page: a notification to the pager about an alert with these labels, in this status. */
const paged = (alertname: string, labels: Record<string, string>, status = 'firing') => notified(pager.posts, alertname, labels, status);

async function stackState(): Promise<string> {
  const get = (url: string) =>
    fetch(url).then(
      (r) => r.text(),
      (err: Error) => `(${err.message})`,
    );
  return [
    `prometheus alerts: ${(await get(`${prometheus.url}/api/v1/alerts`)).slice(0, 3000)}`,
    `alertmanager alerts: ${(await get(`${alertmanager.url}/api/v2/alerts`)).slice(0, 3000)}`,
    `pager: ${JSON.stringify(pager.posts.map((p) => p.alerts.map((a) => `${a.status} ${a.labels.alertname} ${a.labels.target ?? a.labels.region ?? a.labels.kind ?? ''}`))).slice(0, 2000)}`,
    `vigil A (${urlA}, exit ${vigilA.child.exitCode ?? vigilA.child.signalCode ?? 'running'}): ${vigilA.output().slice(-1500)}`,
    `vigil B (${urlB}, exit ${vigilB.child.exitCode ?? vigilB.child.signalCode ?? 'running'}): ${vigilB.output().slice(-1500)}`,
  ].join('\n');
}

/** A wait's failure report: what was still missing, then the state of the whole stack. */
const stuck = (missing?: () => string[]) => async () => `${missing ? `; missing: ${missing().join(', ')}` : ''}\n${await stackState()}`;

/** Seconds each phase took, printed at the end: how long the path takes with the scaled files. */
const timings: Record<string, number> = {};
let phase = Date.now();
const seconds = (from: number) => {
  const s = Math.round((Date.now() - from) / 1000);
  phase = Date.now();
  return s;
};

interface AmAlert {
  labels: Record<string, string>;
  status: { state: string; inhibitedBy: string[] };
}
const amAlerts = async () => (await (await fetch(`${alertmanager.url}/api/v2/alerts`)).json()) as AmAlert[];

/** A fault of docs/paging.md's live rows: how to make it, the pages it must give, and how to clear it. */
interface Fault {
  classes: string[];
  pages: Array<[string, Record<string, string>]>;
  /** Pages the same cause may also give (an agent without servers also reports itself unhealthy). */
  alsoPages?: Array<[string, Record<string, string>]>;
  /** Warnings it must give, which reach vigil's alert sink and page nobody. */
  warns?: Array<[string, Record<string, string>]>;
  inject: () => Promise<unknown>;
  clear: () => Promise<unknown>;
}

const sim = (base: string, path: string) => `${base}/_sim/${path}`;
const secretsUrl = (c: string) => secrets.cluster(c).url;
const agentUrl = (a: string) => agents.agent(a).url;
const rootToken = (c: string) => ({ 'x-secrets-token': secrets.cluster(c).rootToken });

/** Team ids of drop-org, through the API as any client would list them. */
async function teamIds(): Promise<string[]> {
  const res = await fetch(`${teams.url}/api/v2/organizations/drop-org/teams?page%5Bsize%5D=100`, {
    headers: { authorization: `Bearer ${teams.ownerToken('drop-org')}` },
  });
  return ((await res.json()) as { data: Array<{ id: string }> }).data.map((t) => t.id);
}

const FAULTS: Fault[] = [
  {
    classes: ['secrets-unreachable'],
    pages: [['SecretsServiceDown', { target: 'x-unreachable' }]],
    inject: () => secretsProxy.refuse(),
    clear: () => secretsProxy.restore(),
  },
  {
    classes: ['secrets-hung'],
    pages: [['SecretsServiceDown', { target: 'x-hung' }]],
    inject: () => post(sim(secretsUrl('x-hung'), 'faults'), { hang: true }),
    clear: () => post(sim(secretsUrl('x-hung'), 'faults'), undefined, 'DELETE'),
  },
  {
    classes: ['secrets-5xx'],
    pages: [['SecretsServiceDown', { target: 'x-5xx' }]],
    inject: () => post(sim(secretsUrl('x-5xx'), 'faults'), { status: { code: 500, body: { errors: ['internal error'] } } }),
    clear: () => post(sim(secretsUrl('x-5xx'), 'faults'), undefined, 'DELETE'),
  },
  {
    classes: ['secrets-sealed'],
    pages: [['SecretsSealed', { target: 'x-sealed' }]],
    inject: () => post(sim(secretsUrl('x-sealed'), 'seal'), { sealed: true }),
    clear: () => post(sim(secretsUrl('x-sealed'), 'seal'), { sealed: false }),
  },
  {
    // One cause, one page: its primary reports it disconnected, and SecretsReplicationSecondaryDisconnected
    // for it is in no alsoPages, so "paged nothing else" fails if it pages.
    classes: ['secrets-secondary-sealed'],
    pages: [['SecretsSealed', { target: 'sealed-secondary' }]],
    inject: () => post(sim(secretsUrl('sealed-secondary'), 'seal'), { sealed: true }),
    clear: () => post(sim(secretsUrl('sealed-secondary'), 'seal'), { sealed: false }),
  },
  {
    // A sealed standby in a cluster of three voters: one failover less, and the quorum cannot lose
    // another voter, which pages by design. Never SecretsNodeUnreachable: a sealed node answers.
    classes: ['secrets-node-sealed'],
    pages: [],
    alsoPages: [['SecretsRaftFailureToleranceLost', { target: 'n-sealed' }]],
    warns: [['SecretsNodeSealed', { target: 'n-sealed', node: 'node-2' }]],
    inject: () => post(sim(secretsUrl('n-sealed'), 'nodes/node-2'), { sealed: true }),
    clear: () => post(sim(secretsUrl('n-sealed'), 'nodes/node-2'), { sealed: false }),
  },
  {
    // A dead voter: the page says the cluster is at risk, the warnings which node and which server,
    // by the one name the fault is injected with.
    // Never VigilCollectorFailing: the node's failure is not the node poll's.
    classes: ['secrets-raft-tolerance-lost', 'secrets-node-unreachable', 'secrets-raft-server-unhealthy'],
    pages: [['SecretsRaftFailureToleranceLost', { target: 'n-voter' }]],
    warns: [
      ['SecretsNodeUnreachable', { target: 'n-voter', node: 'node-3' }],
      ['SecretsRaftServerUnhealthy', { target: 'n-voter', server: 'node-3' }],
    ],
    inject: () => post(sim(secretsUrl('n-voter'), 'nodes/node-3'), { dead: true }),
    clear: () => post(sim(secretsUrl('n-voter'), 'nodes/node-3'), { dead: false }),
  },
  {
    // Every seal backend of one node: one page for the cluster; the warning of each backend waits (inhibited).
    classes: ['secrets-seal-backends-unhealthy'],
    pages: [['SecretsSealBackendsUnhealthy', { target: 'n-sealed' }]],
    inject: () => post(sim(secretsUrl('n-sealed'), 'nodes/node-1'), { unhealthy_seal_backends: ['hsm', 'transit'] }),
    clear: () => post(sim(secretsUrl('n-sealed'), 'nodes/node-1'), { unhealthy_seal_backends: [] }),
  },
  {
    // One seal backend of a node: a warning for the cluster's backend, no page (the node has another).
    classes: ['secrets-seal-backend-unhealthy'],
    pages: [],
    warns: [['SecretsSealBackendUnhealthy', { target: 'n-voter', backend: 'transit' }]],
    inject: () => post(sim(secretsUrl('n-voter'), 'nodes/node-1'), { unhealthy_seal_backends: ['transit'] }),
    clear: () => post(sim(secretsUrl('n-voter'), 'nodes/node-1'), { unhealthy_seal_backends: [] }),
  },
  {
    classes: ['secrets-license-days'],
    pages: [['SecretsLicenseExpiryCritical', { target: 'n-sealed' }]],
    inject: () => post(sim(secretsUrl('n-sealed'), 'license'), { expires_in_seconds: 3 * 86_400 }),
    clear: () => post(sim(secretsUrl('n-sealed'), 'license'), { expires_in_seconds: 365 * 86_400 }),
  },
  {
    classes: ['secrets-denied', 'secrets-garbage'],
    pages: [],
    inject: () =>
      Promise.all([
        post(sim(secretsUrl('x-denied'), 'faults'), { status: { code: 403, body: { errors: ['permission denied'] } } }),
        post(sim(secretsUrl('x-garbage'), 'faults'), { garbage: true }),
      ]),
    clear: () =>
      Promise.all([post(sim(secretsUrl('x-denied'), 'faults'), undefined, 'DELETE'), post(sim(secretsUrl('x-garbage'), 'faults'), undefined, 'DELETE')]),
  },
  {
    classes: ['secrets-disconnected'],
    pages: [['SecretsReplicationSecondaryDisconnected', { target: 'dr-primary', secondary_id: 'dr-secondary', kind: 'dr' }]],
    inject: () => post(sim(secretsUrl('dr-primary'), 'replication/dr/secondaries/dr-secondary/disconnect'), {}),
    clear: () => post(sim(secretsUrl('dr-primary'), 'replication/dr/secondaries/dr-secondary/connect'), {}),
  },
  {
    classes: ['secrets-merkle'],
    pages: [['SecretsMerkleTreeCorrupted', { target: 'dr-primary' }]],
    inject: () => post(sim(secretsUrl('dr-primary'), 'replication/dr/merkle/corrupt'), { tree: '3', pages: { '17': [1, 2] } }),
    clear: () => post(sim(secretsUrl('dr-primary'), 'replication/dr/merkle/corrupt'), undefined, 'DELETE'),
  },
  {
    classes: ['secrets-split-brain'],
    pages: [['SecretsReplicationSplitBrain', { kind: 'performance' }]],
    // The promoted secondary leaves its primary's list of connected secondaries.
    alsoPages: [['SecretsReplicationSecondaryDisconnected', { target: 'perf-primary' }]],
    inject: () => post(`${secretsUrl('perf-secondary')}/v1/sys/replication/performance/secondary/promote`, {}, 'POST', rootToken('perf-secondary')),
    clear: () => post(`${secretsUrl('perf-secondary')}/v1/sys/replication/performance/primary/demote`, {}, 'POST', rootToken('perf-secondary')),
  },
  {
    classes: ['agent-unreachable'],
    pages: [['SchedulerAgentDown', { target: 'a-unreachable' }]],
    inject: () => agentProxy.refuse(),
    clear: () => agentProxy.restore(),
  },
  {
    classes: ['agent-hung'],
    pages: [['SchedulerAgentDown', { target: 'a-hung' }]],
    inject: () => post(sim(agentUrl('a-hung'), 'faults'), { hang: true }),
    clear: () => post(sim(agentUrl('a-hung'), 'faults'), undefined, 'DELETE'),
  },
  {
    classes: ['agent-unhealthy'],
    pages: [['SchedulerAgentUnhealthy', { target: 'client-1', role: 'client' }]],
    inject: () => post(sim(agentUrl('client-1'), 'health'), { client: { ok: false, message: 'e2e: unhealthy on purpose' } }),
    clear: () => post(sim(agentUrl('client-1'), 'health'), undefined, 'DELETE'),
  },
  {
    classes: ['agent-member-failed'],
    pages: [['SchedulerAgentMemberFailed', { target: 'server-1', member: 'server-2.global' }]],
    inject: () => post(sim(agentUrl('server-1'), 'members/server-2.global'), { status: 'failed' }),
    clear: () => post(sim(agentUrl('server-1'), 'members/server-2.global'), { status: 'alive' }),
  },
  {
    classes: ['agent-no-servers'],
    pages: [['SchedulerAgentNoKnownServers', { target: 'a-lonely' }]],
    alsoPages: [['SchedulerAgentUnhealthy', { target: 'a-lonely' }]],
    inject: () => post(sim(agentUrl('a-lonely'), 'servers/clear'), {}),
    clear: async () => {
      const server = new URL(agentUrl('server-1')).host;
      await post(`${agentUrl('a-lonely')}/v1/agent/servers?address=${encodeURIComponent(server)}`, undefined, 'POST', {
        'x-scheduler-token': agents.managementToken,
      });
    },
  },
  {
    classes: ['agent-no-leader'],
    pages: [['SchedulerAgentNoRaftLeader', { region: 'east' }]],
    alsoPages: [['SchedulerAgentUnhealthy', { target: 'east-1' }]],
    inject: () => post(sim(agentUrl('east-1'), 'raft'), { state: 'Candidate', last_contact: '15s' }),
    clear: () => post(sim(agentUrl('east-1'), 'raft'), undefined, 'DELETE'),
  },
  {
    // One of the region's three voters killed: a quorum left, no failure tolerated. Autopilot also
    // reports the server unhealthy, a warning that pages nobody.
    classes: ['agent-no-tolerance'],
    pages: [['SchedulerAgentAutopilotNoFailureTolerance', { region: 'east' }]],
    inject: () => post(sim(agentUrl('east-1'), 'autopilot/servers/east-1.east'), { killed: true }),
    clear: () => post(sim(agentUrl('east-1'), 'autopilot'), undefined, 'DELETE'),
  },
  {
    // Three of the region's four nodes of pool `default` down, the fourth drained (out of the
    // count, and the fleet dashboard's ineligible nodes): one page for the region's pool, whichever
    // of its agents and vigils list the nodes.
    classes: ['nodes-pool-down'],
    pages: [['SchedulerNodePoolDown', { region: 'global', node_pool: 'default' }]],
    inject: async () => {
      await post(sim(agentUrl('server-1'), 'nodes/down'), { pool: 'default', count: 3 });
      const res = await fetch(`${agentUrl('server-1')}/v1/nodes`, { headers: { 'x-scheduler-token': agents.managementToken } });
      const ready = ((await res.json()) as Array<{ ID: string; Status: string }>).filter((n) => n.Status === 'ready');
      for (const n of ready) await post(sim(agentUrl('server-1'), `nodes/${n.ID}`), { drain: true });
    },
    clear: () => post(sim(agentUrl('server-1'), 'nodes'), undefined, 'DELETE'),
  },
  {
    // vigil's read token, which every agent shares, expires in 3 days of a 33-day life: one
    // warning per region, vigil's operator's to renew, paging nobody.
    classes: ['agent-token-soon'],
    pages: [],
    warns: [
      ['VigilSchedulerTokenExpiresSoon', { region: 'global' }],
      ['VigilSchedulerTokenExpiresSoon', { region: 'east' }],
    ],
    inject: () => post(sim(agentUrl('server-1'), 'acl/read-token'), { expires_in_seconds: 3 * 86_400, created_seconds_ago: 30 * 86_400 }),
    clear: () => post(sim(agentUrl('server-1'), 'acl/read-token'), undefined, 'DELETE'),
  },
  {
    classes: ['teams-down'],
    pages: [['TeamsServiceDown', { target: 'teams-down' }]],
    inject: () => post(`${teamsDown.url}/_sim/faults`, { hang: true }),
    clear: () => post(`${teamsDown.url}/_sim/faults`, undefined, 'DELETE'),
  },
  {
    classes: ['teams-count-dropped'],
    pages: [['TeamsCountDropped', { target: 'drop-org' }]],
    inject: async () => {
      // The rule compares with the largest count of the last hour, sampled each minute: wait
      // until Prometheus has the full organization in that sample (a minute boundary after its
      // first scrape of the teams, however slow a loaded machine made that scrape).
      const peak = 'max_over_time(max by (target, organization) (sum without (visibility) (teams_organization_teams{target="drop-org"}))[1h:1m])';
      await waitFor(
        'a minute boundary at which Prometheus saw the whole organization',
        async () => {
          const body = (await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(peak)}`)).json()) as {
            data: { result: Array<{ value: [number, string] }> };
          };
          return body.data.result[0]?.value[1] === String(DROP_ORG_TEAMS) ? true : undefined;
        },
        150_000,
        { describeFailure: stuck() },
      );
      const auth = { authorization: `Bearer ${teams.ownerToken('drop-org')}` };
      for (const id of (await teamIds()).slice(0, 6)) await post(`${teams.url}/api/v2/teams/${id}`, undefined, 'DELETE', auth);
    },
    clear: async () => {
      const auth = { authorization: `Bearer ${teams.ownerToken('drop-org')}`, 'content-type': 'application/vnd.api+json' };
      for (let i = 0; i < 6; i++)
        await post(`${teams.url}/api/v2/organizations/drop-org/teams`, { data: { type: 'teams', attributes: { name: `restored-${i}` } } }, 'POST', auth);
    },
  },
];

const key = ([name, labels]: [string, Record<string, string>]) => `${name} ${JSON.stringify(labels)}`;

describe('the shipped rules, scrape job and routing, with two vigils', () => {
  it('delivers the Watchdog to the external heartbeat and to vigil, and nothing to the pager while all is well', async () => {
    await waitFor(
      'the Watchdog at the heartbeat',
      async () => (heartbeat.posts.some((p) => p.alerts.some((a) => a.labels.alertname === 'Watchdog')) ? true : undefined),
      90_000,
      { describeFailure: stuck() },
    );
    await waitFor(
      'the Watchdog at vigil',
      async () => {
        const res = await fetch(`http://${urlA}/api/v1/alerts?state=firing&alertname=Watchdog`, { headers: { authorization: `Bearer ${SINK_TOKEN}` } });
        return ((await res.json()) as { alerts: unknown[] }).alerts.length > 0 ? true : undefined;
      },
      60_000,
      { describeFailure: stuck() },
    );
    // Both vigils have polled everything by now; nothing is wrong yet.
    await waitFor(
      'both vigils scraped',
      async () => {
        const body = (await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent('count(up{job="vigil"} == 1)')}`)).json()) as {
          data: { result: Array<{ value: [number, string] }> };
        };
        return body.data.result[0]?.value[1] === '2' ? true : undefined;
      },
      30_000,
      { describeFailure: stuck() },
    );
    expect(pager.posts).toEqual([]);
  }, 200_000);

  it('covers every live row of the paging matrix with a fault', () => {
    const live = FAILURE_CLASSES.filter((f) => f.proof === 'live').map((f) => f.id);
    // a-denied is configured with a token without the policy from the start.
    // secrets-proxy-sets is configured from the start; it must page nobody.
    // teams-owners-dropped and agent-token-expired are produced by paging-owners.test.ts and paging-expired-token.test.ts,
    // the audit devices' rows by paging-audit.test.ts, the snapshots' by paging-snapshots.test.ts, the workload's by paging-workload.test.ts,
    // the optional rows on the upstreams' own telemetry by paging-telemetry.test.ts.
    const covered = new Set([
      ...FAULTS.flatMap((f) => f.classes),
      ...[
        'agent-denied',
        'secrets-proxy-sets',
        'vigil-killed',
        'path-watchdog',
        'teams-owners-dropped',
        'agent-token-expired',
        'secrets-requests-blocked',
        'secrets-audit-check-refused',
        'secrets-snapshot-failing',
        'secrets-snapshot-not-applicable',
        'job-failing',
        'job-batch-failed',
        'job-queued',
        'deployment-below-desired',
        'telemetry-audit-blocked',
        'telemetry-blocked-evaluations',
      ],
    ]);
    expect(live.filter((id) => !covered.has(id))).toEqual([]);
  });

  it('keeps two primaries behind one proxy in sets of their own (the control that must page nobody)', async () => {
    const query = async (expr: string) => {
      const body = (await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as {
        data: { result: Array<{ value: [number, string] }> };
      };
      return body.data.result.map((r) => r.value[1]);
    };
    const targets = Object.keys(BEHIND_SHARED_PROXY).join('|');
    // Both vigils read both primaries through the proxy (a loaded machine may skip their first runs): one set each, one primary in each.
    const up = `count(secrets_replication_up{target=~"${targets}",kind="dr"} == 1)`;
    await waitFor('both vigils read both primaries', async () => ((await query(up))[0] === '4' ? true : undefined), 60_000, { describeFailure: stuck() });
    expect(await query(`count(count by (replication_set) (secrets_replication_set_member_info{target=~"${targets}",kind="dr"}))`)).toEqual(['2']);
    expect(await query('max(secrets_replication_set_primaries{kind="dr"})')).toEqual(['1']);
    expect(await query('ALERTS{alertname="SecretsReplicationSplitBrain"}')).toEqual([]);
  });

  it('pages each failure once, as a critical for its target, whichever vigils see it', async () => {
    phase = Date.now();
    await Promise.all(FAULTS.map((f) => f.inject()));
    const expected = FAULTS.flatMap((f) => f.pages);
    await waitFor('every page', async () => (expected.every(([n, l]) => paged(n, l)) ? true : undefined), 240_000, {
      describeFailure: stuck(() => expected.filter(([n, l]) => !paged(n, l)).map(key)),
    });
    timings.paged = seconds(phase);
    for (const [name, labels] of expected) {
      const notes = pager.posts.filter((p) => p.alerts.some((a) => a.labels.alertname === name && Object.entries(labels).every(([k, v]) => a.labels[k] === v)));
      const alerts = notes.flatMap((p) => p.alerts.filter((a) => a.labels.alertname === name && Object.entries(labels).every(([k, v]) => a.labels[k] === v)));
      expect(
        alerts.every((a) => a.labels.severity === 'critical'),
        key([name, labels]),
      ).toBe(true);
      // One group, and within it one failure: the vigils' copies differ only in which vigil saw it.
      expect(new Set(notes.map((p) => p.groupKey)).size, key([name, labels])).toBe(1);
      const identities = new Set(alerts.map(({ labels: { instance: _i, job: _j, ...rest } }) => JSON.stringify(Object.entries(rest).sort())));
      expect(identities.size, `${key([name, labels])}: ${[...identities].join(' | ')}`).toBe(1);
    }
  }, 300_000);

  it('keeps every page active once vigil’s own warnings for the same targets fire', async () => {
    // The warnings take 5m (here 30s) of failures; the critical must not be silenced by them.
    const downTargets = ['x-unreachable', 'x-hung', 'x-5xx', 'x-sealed', 'a-unreachable', 'a-hung', 'teams-down'];
    await waitFor(
      'VigilCollectorFailing for every down target',
      async () => {
        const all = await amAlerts();
        return downTargets.every((t) => all.some((a) => a.labels.alertname === 'VigilCollectorFailing' && a.labels.target === t)) ? all : undefined;
      },
      120_000,
      { describeFailure: stuck() },
    );
    const all = await amAlerts();
    for (const [name, labels] of FAULTS.flatMap((f) => f.pages)) {
      const mine = all.filter((a) => a.labels.alertname === name && Object.entries(labels).every(([k, v]) => a.labels[k] === v));
      expect(mine.length, key([name, labels])).toBeGreaterThan(0);
      for (const a of mine) expect(a.status, key([name, labels])).toMatchObject({ state: 'active', inhibitedBy: [] });
    }
    for (const t of downTargets) {
      const warnings = all.filter((a) => a.labels.alertname === 'VigilCollectorFailing' && a.labels.target === t);
      expect(
        warnings.every((a) => a.status.state === 'suppressed'),
        t,
      ).toBe(true);
    }
    // The operator's problems warn vigil's history and page nobody.
    for (const t of ['x-denied', 'x-garbage', 'a-denied']) {
      await waitFor(
        `VigilCollectorFailing for ${t} at vigil`,
        async () => {
          const res = await fetch(`http://${urlA}/api/v1/alerts?state=firing&alertname=VigilCollectorFailing`, {
            headers: { authorization: `Bearer ${SINK_TOKEN}` },
          });
          const alerts = ((await res.json()) as { alerts: Array<{ labels: Record<string, string> }> }).alerts;
          return alerts.some((a) => a.labels.target === t) ? true : undefined;
        },
        60_000,
        { describeFailure: stuck() },
      );
    }
  }, 200_000);

  it('warns of each node and token fault at vigil, and a node that does not answer is no collector failure', async () => {
    const warns = FAULTS.flatMap((f) => f.warns ?? []);
    const firingAtVigil = async () => {
      const res = await fetch(`http://${urlA}/api/v1/alerts?state=firing`, { headers: { authorization: `Bearer ${SINK_TOKEN}` } });
      return ((await res.json()) as { alerts: Array<{ labels: Record<string, string> }> }).alerts;
    };
    const missing = async () => {
      const alerts = await firingAtVigil();
      return warns.filter(([n, l]) => !alerts.some((a) => a.labels.alertname === n && Object.entries(l).every(([k, v]) => a.labels[k] === v)));
    };
    let left: Array<[string, Record<string, string>]> = warns;
    await waitFor('every warning at vigil', async () => ((left = await missing()).length === 0 ? true : undefined), 150_000, {
      describeFailure: stuck(() => left.map(key)),
    });
    // The dead node refuses connections: the node poll never failed with `connect` since it died,
    // and no VigilCollectorFailing (firing or pending) says so. (A loaded machine may time a poll out: another reason.)
    for (const expr of [
      'max_over_time(vigil_collector_failing{collector="secrets_nodes",target="n-voter",reason="connect"}[10m])',
      'ALERTS{alertname="VigilCollectorFailing",target="n-voter",reason="connect"}',
    ]) {
      const body = (await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as { data: { result: unknown[] } };
      expect(body.data.result, `${expr}\n${await stackState()}`).toEqual([]);
    }
  }, 200_000);

  it('runs every dashboard query against the live Prometheus', async () => {
    const panels = Object.entries(mixinDashboards()).flatMap(([file, d]) => d.panels.map((p) => [`${file}: ${p.title}`, p] as const));
    for (const [name, panel] of panels) {
      for (const q of panel.queries) {
        const expr = substituteGrafanaVariables(q.expr, '1m', '10m');
        const body = (await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as {
          status: string;
          error?: string;
          data?: { result: unknown[] };
        };
        expect(body.error ?? '', `${name}: ${expr}`).toBe('');
        if (!panel.mayBeEmpty) expect(body.data?.result.length ?? 0, `${name}: no data for ${expr}`).toBeGreaterThan(0);
      }
    }
  }, 60_000);

  it('resolves each page when its fault clears', async () => {
    phase = Date.now();
    await Promise.all(FAULTS.map((f) => f.clear()));
    const expected = FAULTS.flatMap((f) => f.pages);
    await waitFor('every page resolved', async () => (expected.every(([n, l]) => paged(n, l, 'resolved')) ? true : undefined), 180_000, {
      describeFailure: stuck(() => expected.filter(([n, l]) => !paged(n, l, 'resolved')).map(key)),
    });
    timings.resolved = seconds(phase);
  }, 200_000);

  it('pages when a vigil is killed', async () => {
    vigilB.child.kill('SIGKILL');
    phase = Date.now();
    await waitFor('VigilDown for the killed vigil', async () => (paged('VigilDown', { instance: urlB }) ? true : undefined), 120_000, {
      describeFailure: stuck(),
    });
    timings.vigilDownPaged = seconds(phase);
    expect(paged('VigilDown', { instance: urlA }), await stackState()).toBe(false);
  }, 150_000);

  it('paged nothing else: no healthy target, no misconfigured one, no rule error', async () => {
    const allowed = new Set(
      [...FAULTS.flatMap((f) => [...f.pages, ...(f.alsoPages ?? [])]), ['VigilDown', { instance: urlB }] as [string, Record<string, string>]].map(key),
    );
    const unexpected = pager.posts.flatMap((p) =>
      p.alerts.filter(
        (a) =>
          ![...allowed].some((k) => {
            const [name, labels] = [k.slice(0, k.indexOf(' ')), JSON.parse(k.slice(k.indexOf(' ') + 1)) as Record<string, string>];
            return a.labels.alertname === name && Object.entries(labels).every(([lk, lv]) => a.labels[lk] === lv);
          }),
      ),
    );
    expect(
      unexpected.map((a) => `${a.labels.alertname} ${JSON.stringify(a.labels)}`),
      await stackState(),
    ).toEqual([]);
    const rules = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as {
      data: { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> };
    };
    const broken = rules.data.groups.flatMap((g) => g.rules).filter((r) => r.health !== 'ok');
    expect(broken.map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
  });
});
