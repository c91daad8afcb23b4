import { readFile } from 'node:fs/promises';
import { simulatorArgs } from '../common/args.js';
import { checkProfile } from '../common/profile.js';
import { AGENT_PROFILES, demoAgentScenario, parseAgentScenario, startAgentSimulator, type AgentScenario } from './index.js';

/**
 * Runs the agent simulator alone:
 *   node dist/simulators/agent/main.js --port=4646 [--scenario=file.json]
 * Agents listen on consecutive ports from --port (0: each on a free port), unless the scenario
 * gives an agent its own port.
 */
async function main(): Promise<void> {
  const args = simulatorArgs(process.argv.slice(2), 4646);
  const loaded: AgentScenario = args.scenario ? parseAgentScenario(JSON.parse(await readFile(args.scenario, 'utf8'))) : demoAgentScenario();
  const scenario: AgentScenario = {
    ...loaded,
    agents: loaded.agents.map((a, i) => ({ ...a, port: a.port ?? (args.port === 0 ? 0 : args.port + i) })),
  };
  const profile = checkProfile(args.profile, AGENT_PROFILES);
  const sim = await startAgentSimulator(scenario, { host: args.host, profile, ...(args.tls ? { tls: args.tls } : {}) });
  // Tokens are cluster-wide; printing them on each agent's line keeps a line self-sufficient for scripts.
  const tokens = scenario.acl?.enabled ? `read-token=${sim.readToken} management-token=${sim.managementToken}` : 'acl=off';
  for (const a of sim.agents.values()) process.stdout.write(`${a.name} ${a.url} ${tokens}\n`);
  const stop = (): void => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`agent simulator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
