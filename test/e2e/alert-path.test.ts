import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { allDashboards } from '../../dashboards/src/index.js';
import { demoAgentScenario, startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { tempFile } from '../helpers/daemon.js';
import { startVigil, type VigilProcess } from '../helpers/process.js';
import { substituteGrafanaVariables } from '../helpers/promql.js';
import { freePort, startAlertmanager, startPrometheus, waitFor, type Service } from './processes.js';

/**
 * The whole path with real parts: a fault in a simulated upstream → vigil's metric → a real
 * Prometheus (scraping every second, the shipped alerts/ loaded unchanged) → a real Alertmanager
 * (the shipped deploy/ config, addresses rewritten to loopback) → vigil's alert sink.
 */
const repo = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const SINK_TOKEN = 'e2e-sink-token-0123456789abcdef';

let secrets: SecretsSimulator;
let agents: AgentSimulator;
let teams: TeamsSimulator;
let vigil: VigilProcess;
let vigilUrl = '';
let alertmanager: Service;
let prometheus: Service;
let pager: http.Server;
const timings: Record<string, { firingAfterSeconds: number; resolvedAfterSeconds: number }> = {};

interface SinkAlert {
  alertname: string;
  state: string;
  labels: Record<string, string>;
}

async function sinkAlerts(query: string): Promise<SinkAlert[]> {
  const res = await fetch(`${vigilUrl}/api/v1/alerts?${query}`, { headers: { authorization: `Bearer ${SINK_TOKEN}` } });
  if (!res.ok) throw new Error(`sink answered ${res.status}`);
  return ((await res.json()) as { alerts: SinkAlert[] }).alerts;
}

function vigilConfig(): string {
  const agentToken = tempFile('agent-token', agents.readToken);
  const drToken = tempFile('dr-token', secrets.cluster('dr-secondary').drOperationToken());
  const teamsToken = tempFile('teams-token', teams.ownerToken('acme'));
  const sinkToken = tempFile('sink-token', SINK_TOKEN);
  const store = tempFile('alerts.db', '').replace(/alerts\.db$/, 'sink.db');
  const every = '"*/1 * * * * *"';
  return [
    'secrets:',
    ...[...secrets.clusters.values()].map((c) => `  - { name: ${c.name}, address: "${c.url}", schedule: ${every}, timeout: 800ms${c.name === 'dr-secondary' ? `, merkle_check: { dr_operation_token_file: ${drToken}, schedule: "*/10 * * * * *" }` : ''} }`),
    'agents:',
    ...[...agents.agents.values()].map((a) => `  - { name: ${a.name}, address: "${a.url}", token_file: ${agentToken}, schedule: ${every}, timeout: 800ms, host: true, expected_servers: 1 }`),
    'teams:',
    `  - { name: acme, address: "${teams.url}", organization: acme, token_file: ${teamsToken}, schedule: "*/20 * * * * *", complete_access: true, requests_per_second: 200 }`,
    'alert_sink:',
    `  bearer_token_file: ${sinkToken}`,
    `  store: { path: ${store} }`,
    '  watchdog: { alertname: Watchdog, max_silence: 10m }',
    '',
  ].join('\n');
}

function alertmanagerConfig(pagerUrl: string, tokenFile: string): unknown {
  const am = parse(readFileSync(repo('deploy/alertmanager/alertmanager.yml'), 'utf8')) as {
    route: Record<string, unknown> & { routes: Array<Record<string, unknown>> };
    receivers: Array<{ name: string; webhook_configs: Array<Record<string, unknown> & { http_config?: { authorization?: Record<string, string> } }> }>;
  };
  // Seconds instead of minutes, so the test sees notifications promptly; the routing is unchanged.
  for (const r of [am.route, ...am.route.routes]) {
    if ('group_wait' in r || r === am.route) r.group_wait = '1s';
    if ('group_interval' in r || r === am.route) r.group_interval = '1s';
  }
  for (const rcv of am.receivers) {
    for (const w of rcv.webhook_configs) {
      if (rcv.name === 'vigil') {
        w.url = `${vigilUrl}/webhook/alertmanager`;
        w.http_config!.authorization!.credentials_file = tokenFile;
      } else {
        w.url = pagerUrl;
      }
    }
  }
  return am;
}

function prometheusConfig(amPort: number, vigilHostPort: string): unknown {
  const p = parse(readFileSync(repo('deploy/prometheus/prometheus.yml'), 'utf8')) as {
    global: Record<string, string>;
    rule_files: string[];
    alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
    scrape_configs: Array<Record<string, unknown> & { static_configs: Array<{ targets: string[] }> }>;
  };
  p.global.scrape_interval = '1s';
  p.global.evaluation_interval = '1s';
  p.rule_files = [repo('alerts/*.rules.yml')];
  p.alerting.alertmanagers[0]!.static_configs[0]!.targets = [`127.0.0.1:${amPort}`];
  const job = p.scrape_configs[0]!;
  job.scrape_interval = '1s';
  job.scrape_timeout = '1s';
  job.static_configs[0]!.targets = [vigilHostPort];
  return p;
}

beforeAll(async () => {
  secrets = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 1000 });
  agents = await startAgentSimulator(demoAgentScenario());
  teams = await startTeamsSimulator({ organizations: [{ name: 'acme', teams: 130, seed: 7 }] });
  pager = http.createServer((req, res) => req.resume().on('end', () => res.end()));
  await new Promise<void>((r) => pager.listen(0, '127.0.0.1', r));
  const pagerUrl = `http://127.0.0.1:${(pager.address() as { port: number }).port}/alert`;

  const port = await freePort();
  vigilUrl = `http://127.0.0.1:${port}`;
  vigil = startVigil([`--config.file=${tempFile('vigil.yml', vigilConfig())}`, `--web.listen-address=127.0.0.1:${port}`, '--log.format=json']);
  await vigil.waitFor(/"msg":"vigil listening"/);

  const tokenFile = tempFile('am-token', SINK_TOKEN);
  alertmanager = await startAlertmanager(alertmanagerConfig(pagerUrl, tokenFile));
  const amPort = Number(new URL(alertmanager.url).port);
  // Prometheus drops the first notifications it evaluates before it has discovered Alertmanager and
  // resends a firing alert only every resend-delay (1m by default): 2s gets the Watchdog through promptly.
  prometheus = await startPrometheus(prometheusConfig(amPort, `127.0.0.1:${port}`), ['--rules.alert.resend-delay=2s']);
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await alertmanager?.stop();
  await vigil?.stop();
  await Promise.all([secrets?.close(), agents?.close(), teams?.close()]);
  if (pager) await new Promise((r) => pager.close(r));
  // eslint-disable-next-line no-console
  console.log(`fault → alert at the sink: ${JSON.stringify(timings)}`);
}, 60_000);

const simPost = async (url: string, body: unknown, method = 'POST') => {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
};

/** What each part of the path holds, for a failure message that says where an alert got stuck. */
async function stackState(): Promise<string> {
  const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers }).then((r) => r.text(), (err: Error) => `(${err.message})`);
  return [
    `prometheus alerts: ${(await get(`${prometheus.url}/api/v1/alerts`)).slice(0, 1500)}`,
    `alertmanager alerts: ${(await get(`${alertmanager.url}/api/v2/alerts`)).slice(0, 1500)}`,
    `sink notifications: ${(await get(`${vigilUrl}/api/v1/notifications?limit=3`, { authorization: `Bearer ${SINK_TOKEN}` })).slice(0, 1500)}`,
    `vigil log: ${vigil.output().slice(-1500)}`,
  ].join('\n');
}

/** Injects a fault, waits for the alert to arrive firing at the sink, clears it, waits for resolved. */
async function faultRoundTrip(alertname: string, labels: Record<string, string>, inject: () => Promise<void>, clear: () => Promise<void>) {
  const matches = (a: SinkAlert) => a.alertname === alertname && Object.entries(labels).every(([k, v]) => a.labels[k] === v);
  const started = Date.now();
  await inject();
  await waitFor(`${alertname} firing at the sink`, async () => ((await sinkAlerts(`state=firing&alertname=${alertname}`)).some(matches) ? true : undefined), 240_000).catch(
    async (e: Error) => {
      throw new Error(`${e.message}\n${await stackState()}`);
    },
  );
  const firing = (Date.now() - started) / 1000;
  const cleared = Date.now();
  await clear();
  await waitFor(`${alertname} resolved at the sink`, async () => ((await sinkAlerts(`state=resolved&alertname=${alertname}`)).some(matches) ? true : undefined), 120_000);
  timings[alertname] = { firingAfterSeconds: Math.round(firing), resolvedAfterSeconds: Math.round((Date.now() - cleared) / 1000) };
}

describe('fault → Prometheus alert → Alertmanager → vigil sink', () => {
  it('delivers the Watchdog, proving the path', async () => {
    await waitFor('Watchdog at the sink', async () => ((await sinkAlerts('state=firing&alertname=Watchdog')).length > 0 ? true : undefined), 60_000).catch(
      async (e: Error) => {
        throw new Error(`${e.message}\n${await stackState()}`);
      },
    );
  }, 70_000);

  it('a disconnected secondary', async () => {
    const primary = secrets.cluster('dr-primary').url;
    await faultRoundTrip(
      'SecretsReplicationSecondaryDisconnected',
      { target: 'dr-primary', secondary_id: 'dr-secondary', kind: 'dr', severity: 'critical' },
      () => simPost(`${primary}/_sim/replication/dr/secondaries/dr-secondary/disconnect`, {}),
      () => simPost(`${primary}/_sim/replication/dr/secondaries/dr-secondary/connect`, {}),
    );
  }, 400_000);

  it('a failed gossip member', async () => {
    const server = agents.agent('server-1').url;
    const state = (await (await fetch(`${server}/v1/agent/members`, { headers: { 'x-scheduler-token': agents.readToken } })).json()) as { Members: Array<{ Name: string }> };
    const member = state.Members.find((m) => m.Name !== 'server-1.global')!.Name;
    await faultRoundTrip(
      'SchedulerAgentMemberFailed',
      { target: 'server-1', member },
      () => simPost(`${server}/_sim/members/${member}`, { status: 'failed' }),
      () => simPost(`${server}/_sim/members/${member}`, { status: 'alive' }),
    );
  }, 400_000);

  it('an unhealthy agent', async () => {
    const client = agents.agent('client-1').url;
    await faultRoundTrip(
      'SchedulerAgentUnhealthy',
      { target: 'client-1', role: 'client' },
      () => simPost(`${client}/_sim/health`, { client: { ok: false, message: 'e2e: unhealthy on purpose' } }),
      () => simPost(`${client}/_sim/health`, {}, 'DELETE'),
    );
  }, 400_000);
});

describe('faults of the secrets service that concern its keys and its primaries', () => {
  const secretsApi = async (cluster: string, path: string) => {
    const c = secrets.cluster(cluster);
    const res = await fetch(`${c.url}/v1/sys/replication/${path}`, { method: 'POST', headers: { 'x-secrets-token': c.rootToken }, body: '{}' });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };

  // Both at once, so the wall time added is the longer of the two alerts' paths, not their sum.
  it('a split brain (a promoted secondary beside its primary) and a DR operation token attempt', async () => {
    const drSecondary = secrets.cluster('dr-secondary').url;
    await Promise.all([
      faultRoundTrip(
        'SecretsReplicationSplitBrain',
        { kind: 'performance', severity: 'critical' },
        () => secretsApi('perf-secondary', 'performance/secondary/promote'),
        () => secretsApi('perf-secondary', 'performance/primary/demote'),
      ),
      faultRoundTrip(
        'SecretsDROperationTokenAttemptOpen',
        { target: 'dr-secondary', severity: 'warning' },
        () => simPost(`${drSecondary}/_sim/dr-token-attempt`, {}),
        () => simPost(`${drSecondary}/_sim/dr-token-attempt`, {}, 'DELETE'),
      ),
    ]);
  }, 400_000);
});

describe('dashboards against the live Prometheus', () => {
  const panels = Object.entries(allDashboards()).flatMap(([file, d]) => d.panels.map((p) => [`${file}: ${p.title}`, p] as const));
  it.each(panels)('%s: every query runs, and returns data unless none is the good case', async (_name, panel) => {
    for (const q of panel.queries) {
      const expr = substituteGrafanaVariables(q.expr, '1m', '10m');
      const res = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
      expect(body.error ?? '', expr).toBe('');
      expect(body.status, expr).toBe('success');
      if (!panel.mayBeEmpty) expect(body.data?.result.length ?? 0, `no data for: ${expr}`).toBeGreaterThan(0);
    }
  });
});
