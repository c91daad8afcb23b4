import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { demoConfig } from './demo-config.js';
import { AGENT_PROFILES, demoAgentScenario, startAgentSimulator } from './agent/index.js';
import { checkProfile } from './common/profile.js';
import { demoSecretsScenario, SECRETS_PROFILES, startSecretsSimulator } from './secrets/index.js';
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

const secrets = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 1000, profile: checkProfile(values['secrets-profile'], SECRETS_PROFILES) });
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
const configFile = join(dir, 'vigil.yml');
writeFileSync(configFile, demoConfig({ secrets, agents, teams, organization }, { drOperationTokenFile, agentTokenFile, teamsTokenFile, alertStore: join(dir, 'alerts.db') }));

const main = fileURLToPath(new URL('../main.js', import.meta.url));
const vigil = spawn(process.execPath, [main, `--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`], {
  stdio: ['ignore', 'inherit', 'inherit'],
});

const url = `http://127.0.0.1:${port}`;
const dp = secrets.cluster('dr-primary').url;
const ds = secrets.cluster('dr-secondary').url;
const ps = secrets.cluster('perf-secondary').url;
process.stdout.write(`
vigil demo: open the status page ${url}/
  status page    ${url}/          (the estate: problems first; updates itself)
  alert history  ${url}/alerts    (firing now, every notification, each alert's timeline)
  metrics        ${url}/metrics
  config         ${configFile}
  alert sink     ${url}/webhook/alertmanager   (history: ${url}/api/v1/notifications)
  secrets service simulators:
${[...secrets.clusters.values()].map((c) => `    ${c.name.padEnd(16)} ${c.url}`).join('\n')}
  team-management simulator: ${teams.url} (organization ${organization})
  cluster agent simulators:
${[...agents.agents.values()].map((a) => `    ${a.name.padEnd(16)} ${a.url}`).join('\n')}

Try a fault and watch ${url}/ (collections run every 5 s; the page shows it within two):
  curl -XPOST ${dp}/_sim/replication/dr/secondaries/dr-secondary/disconnect -d '{}'
  curl -XPOST ${dp}/_sim/replication/dr/wal/advance -d '{"by":50,"secondaries_follow":false}'
  curl -XPOST ${secrets.cluster('perf-secondary').url}/_sim/faults -d '{"hang":true}'
  curl -XDELETE ${secrets.cluster('perf-secondary').url}/_sim/faults
  curl -XPOST ${agents.agent('server-1').url}/_sim/members/server-2.global -d '{"status":"failed"}'
  curl -XPOST ${agents.agent('server-1').url}/_sim/health -d '{"server":{"ok":false,"message":"no leader"}}'
Keys, seal and primaries of the secrets service:
  curl -XPOST ${ds}/_sim/dr-token-attempt            # start a DR operation token attempt (advance: .../advance, cancel: -XDELETE)
  curl -XPOST ${ps}/v1/sys/replication/performance/secondary/promote -H 'x-secrets-token: ${secrets.cluster('perf-secondary').rootToken}'   # split brain
  curl -XPOST ${ps}/_sim/seal -d '{"sealed":true}'
  curl -XPOST ${ps}/_sim/faults -d '{"status":{"code":472,"body":{"errors":[]}}}'   # a DR secondary's active node: reason standby
Raft, gossip and disks of the agents:
  curl -XPOST ${agents.agent('server-1').url}/_sim/raft -d '{"state":"Candidate","last_contact":"15s"}'   # no leader
  curl -XPOST ${agents.agent('server-1').url}/_sim/raft -d '{"applied_index":"1"}'   # applying behind commit
  curl -XPOST ${agents.agent('server-1').url}/_sim/serf -d '{"health_score":"3"}'
  curl -XPOST ${agents.agent('client-1').url}/_sim/host/disk -d '{"mount":"/","used_mb":50000}'
Owners of the team-management service:
  curl -XPOST ${teams.url}/_sim/team-users -d '{"organization":"${organization}","team":"owners","count":0}'   # after creating an owners team
Certificates: serve a simulator over TLS with --tls-cert-file/--tls-key-file (see README).
Ctrl-C stops the demo.

`);

let stopping = false;
const stop = (code: number) => {
  if (stopping) return;
  stopping = true;
  vigil.kill('SIGTERM');
  void Promise.all([secrets.close(), agents.close(), teams.close()]).then(() => process.exit(code));
};
vigil.on('exit', (code) => {
  if (!stopping) {
    process.stderr.write(`vigil exited with code ${code}\n`);
    stop(1);
  }
});
process.once('SIGINT', () => stop(0));
process.once('SIGTERM', () => stop(0));
