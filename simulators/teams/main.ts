import { readFile } from 'node:fs/promises';
import { simulatorArgs } from '../common/args.js';
import { checkProfile } from '../common/profile.js';
import { demoTeamsScenario, parseScenario, startTeamsSimulator, TEAMS_PROFILES } from './index.js';

const args = simulatorArgs(process.argv.slice(2), 8300);
const scenario = args.scenario ? parseScenario(JSON.parse(await readFile(args.scenario, 'utf8'))) : demoTeamsScenario();
const profile = checkProfile(args.profile, TEAMS_PROFILES);
const sim = await startTeamsSimulator(scenario, { host: args.host, port: args.port, profile, ...(args.tls ? { tls: args.tls } : {}) });

process.stdout.write(`teams simulator listening on ${sim.url} (API ${sim.url}/api/v2, admin ${sim.url}/_sim)\n`);
for (const org of scenario.organizations) {
  process.stdout.write(`organization ${org.name}: ${org.teams} teams, owner token ${sim.ownerToken(org.name)}\n`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sim.close().then(() => process.exit(0));
  });
}
