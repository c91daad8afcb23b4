import { readFile } from 'node:fs/promises';
import { simulatorArgs } from '../common/args.js';
import { demoTeamsScenario, parseScenario, startTeamsSimulator } from './index.js';

const args = simulatorArgs(process.argv.slice(2), 8300);
const scenario = args.scenario ? parseScenario(JSON.parse(await readFile(args.scenario, 'utf8'))) : demoTeamsScenario();
const sim = await startTeamsSimulator(scenario, { host: args.host, port: args.port, ...(args.tls ? { tls: args.tls } : {}) });

process.stdout.write(`teams simulator listening on ${sim.url} (API ${sim.url}/api/v2, admin ${sim.url}/_sim)\n`);
for (const org of scenario.organizations) {
  process.stdout.write(`organization ${org.name}: ${org.teams} teams, owner token ${sim.ownerToken(org.name)}\n`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sim.close().then(() => process.exit(0));
  });
}
