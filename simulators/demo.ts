import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { aboutSeconds, FACTOR, INTERVAL_SECONDS, missingForAlerting, severityOf, startAlertingStack, type AlertingStack } from './alerting/stack.js';
import { pageLine, type Page } from './alerting/pager.js';
import { demoConfig } from './demo-config.js';
import { alertsOf } from './alerting/failure-classes/index.js';
import { demoFaults } from './demo-faults.js';
import { demoTelemetryJobs } from './demo-telemetry.js';
import { AGENT_PROFILES, demoAgentScenario, startAgentSimulator } from './agent/index.js';
import { checkProfile } from './common/profile.js';
import { DEMO_NODES_CLUSTER, demoWithNodesScenario, SECRETS_PROFILES, startSecretsSimulator } from './secrets/index.js';
import { demoTeamsScenario, startTeamsSimulator, TEAMS_PROFILES } from './teams/index.js';

/**
 * The demo: the bundled simulators of all upstreams, and vigil (the built `dist/main.js`, run as an
 * operator would run it) pointed at them. Ctrl-C stops everything.
 */
// `npm run demo -- --secrets-profile=pre-1.5` runs vigil against the answers of an older release.
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '9810' },
    'secrets-profile': { type: 'string' },
    'agent-profile': { type: 'string' },
    'teams-profile': { type: 'string' },
  },
  strict: true,
});
const port = Number(values.port);

const secrets = await startSecretsSimulator(demoWithNodesScenario(), { walTickMs: 1000, profile: checkProfile(values['secrets-profile'], SECRETS_PROFILES) });
const agents = await startAgentSimulator(demoAgentScenario(), { profile: checkProfile(values['agent-profile'], AGENT_PROFILES) });
const teamsScenario = demoTeamsScenario();
const teams = await startTeamsSimulator(teamsScenario, { profile: checkProfile(values['teams-profile'], TEAMS_PROFILES) });
const organization = teamsScenario.organizations[0]!.name;
const dir = mkdtempSync(join(tmpdir(), 'vigil-demo-'));
const drOperationTokenFile = join(dir, 'dr-operation-token');
writeFileSync(drOperationTokenFile, secrets.cluster('dr-secondary').drOperationToken(), { mode: 0o600 });
const agentTokenFile = join(dir, 'agent-token');
writeFileSync(agentTokenFile, agents.readToken, { mode: 0o600 });
const teamsTokenFile = join(dir, 'teams-token');
writeFileSync(teamsTokenFile, teams.ownerToken(organization), { mode: 0o600 });
const nodesTokenFile = join(dir, 'nodes-token');
writeFileSync(nodesTokenFile, secrets.cluster(DEMO_NODES_CLUSTER).rootToken, { mode: 0o600 });
const configFile = join(dir, 'vigil.yml');
writeFileSync(
  configFile,
  demoConfig(
    { secrets, agents, teams, organization },
    { drOperationTokenFile, agentTokenFile, teamsTokenFile, nodesTokenFile, alertStore: join(dir, 'alerts.db') },
  ),
);

// Built: dist/simulators/demo.js runs dist/main.js. From source (tsx): simulators/demo.ts runs src/main.ts.
const fromSource = import.meta.url.endsWith('.ts');
const main = fileURLToPath(new URL(fromSource ? '../src/main.ts' : '../main.js', import.meta.url));
const vigil = spawn(
  process.execPath,
  [...(fromSource ? ['--import', 'tsx'] : []), main, `--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`],
  {
    stdio: ['ignore', 'inherit', 'inherit'],
  },
);

const vigilAddress = `127.0.0.1:${port}`;
const url = `http://${vigilAddress}`;
let stack: AlertingStack | undefined;
let stopping = false;

const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  const vigilGone = vigil.exitCode !== null || vigil.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => vigil.once('exit', () => r()));
  vigil.kill('SIGTERM');
  const t = setTimeout(() => vigil.kill('SIGKILL'), 10_000);
  await Promise.all([vigilGone, stack?.stop(), secrets.close(), agents.close(), teams.close()]);
  clearTimeout(t);
  // Tokens, vigil's alert history, Prometheus' and Alertmanager's data: nothing stays behind.
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write('vigil demo stopped; its processes and temp data are gone\n');
  process.exit(code);
};
vigil.on('exit', (code) => {
  if (!stopping) {
    process.stderr.write(`vigil exited with code ${code}\n`);
    void stop(1);
  }
});
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

const ready = async () => {
  for (let i = 0; i < 600 && !stopping; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
};
if (!(await ready())) {
  process.stderr.write('vigil did not start listening within a minute\n');
  await stop(1);
}

const missing = missingForAlerting();
if (missing.length === 0) {
  try {
    // Alertmanager repeats a group's notification as it changes: say each alert's news once.
    const said = new Set<string>();
    const onPage = (p: Page) => {
      for (const l of pageLine(p)) if (!said.has(l) && said.add(l)) process.stdout.write(`[pager] ${l}\n`);
      for (const l of pageLine({ ...p, alerts: p.alerts.map((a) => ({ ...a, status: a.status === 'firing' ? 'resolved' : 'firing' })) })) said.delete(l);
    };
    stack = await startAlertingStack({ dir, vigil: vigilAddress, onPage, telemetry: demoTelemetryJobs(secrets, agents, nodesTokenFile) });
  } catch (e) {
    process.stderr.write(`the alerting path did not start, the demo runs without it: ${e instanceof Error ? e.message : String(e)}\n`);
  }
}

const faultLines = demoFaults({ secrets, agents, teams, organization }).map((f) => {
  const effects = alertsOf(f.classes).map((a) => {
    const severity = severityOf(a);
    const where = !stack
      ? ''
      : severity === 'critical'
        ? ` pages in ~${aboutSeconds(a, f.pollSeconds ?? 5)} s`
        : ` reaches vigil's history in ~${aboutSeconds(a, f.pollSeconds ?? 5)} s`;
    return `${a} (${severity})${where}`;
  });
  return `  # ${f.what}: ${effects.length > 0 ? effects.join('; ') : 'pages nobody'}\n  ${f.inject}${f.clear ? `\n    clear: ${f.clear}` : ''}`;
});

process.stdout.write(`
vigil demo: open the status page ${url}/
  status page    ${url}/          (the estate: problems first; updates itself)
  alert history  ${url}/alerts    (firing now, every notification, each alert's timeline)
  metrics        ${url}/metrics
  config         ${configFile}
  alert sink     ${url}/webhook/alertmanager   (history: ${url}/api/v1/notifications)
${
  stack
    ? `  Prometheus     ${stack.prometheus.url}/alerts   (the shipped rules and the optional ones on the upstreams' telemetry, for: divided by ${FACTOR}; scrapes vigil, and the ${DEMO_NODES_CLUSTER} nodes' and the agents' own telemetry, every ${INTERVAL_SECONDS} s)
  Alertmanager   ${stack.alertmanager.url}/   (the shipped routing, waits divided by ${FACTOR})
  pager          ${stack.pager.url}/   (a stand-in: what pages; also printed here as [pager] lines)
  heartbeat      ${stack.heartbeat.url}/   (the stand-in dead-man's switch: the Watchdog every few seconds)`
    : `  Prometheus and Alertmanager are not installed, so nothing evaluates the alert rules or pages:
    apt-get install ${missing.join(' ')}   (then run the demo again)`
}
  temp data      ${dir}   (removed when the demo stops)
  secrets service simulators:
${[...secrets.clusters.values()].map((c) => `    ${c.name.padEnd(16)} ${c.url}`).join('\n')}
  the nodes of ${DEMO_NODES_CLUSTER} (vigil finds them from its address; node-1 is active at the start):
${[...secrets.cluster(DEMO_NODES_CLUSTER).nodes].map(([id, u]) => `    ${id.padEnd(16)} ${u}`).join('\n')}
  team-management simulator: ${teams.url} (organization ${organization})
  cluster agent simulators:
${[...agents.agents.values()].map((a) => `    ${a.name.padEnd(16)} ${a.url}`).join('\n')}

Inject a fault and watch ${url}/ (collections run every 5 s)${stack ? `, the page arrive at ${stack.pager.url}/ and in ${url}/alerts` : ''}; clear it to see it resolve:
${faultLines.join('\n')}
Certificates: serve a simulator over TLS with --tls-cert-file/--tls-key-file (see README).
Ctrl-C stops the demo.

`);
