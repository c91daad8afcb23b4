import { simulatorArgs } from '../common/args.js';
import { checkProfile } from '../common/profile.js';
import { demoSecretsScenario, loadScenarioFile, SECRETS_PROFILES, startSecretsSimulator, type SecretsScenario } from './index.js';

/** Clusters without a port take consecutive ports from --port, like a row of real servers. */
function withPorts(scenario: SecretsScenario, firstPort: number): SecretsScenario {
  if (firstPort === 0) return scenario;
  return { ...scenario, clusters: scenario.clusters.map((c, i) => ({ ...c, port: c.port || firstPort + i })) };
}

const args = simulatorArgs(process.argv.slice(2), 8200);
const scenario = args.scenario ? await loadScenarioFile(args.scenario) : demoSecretsScenario();
const profile = checkProfile(args.profile, SECRETS_PROFILES);
const simulator = await startSecretsSimulator(withPorts(scenario, args.port), { host: args.host, profile, ...(args.tls ? { tls: args.tls } : {}) });
for (const cluster of simulator.clusters.values()) {
  process.stdout.write(`${cluster.name} ${cluster.url} root_token=${cluster.rootToken}\n`);
}

let closing = false;
const shutdown = (): void => {
  if (closing) return;
  closing = true;
  simulator.close().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`close failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
