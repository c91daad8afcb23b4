import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DemoSecrets } from '../../../simulators/demo-config.js';
import { demoAgentScenario, startAgentSimulator, type AgentSimulator } from '../../../simulators/agent/index.js';
import { startSecretsSimulator, type SecretsScenario, type SecretsSimulator } from '../../../simulators/secrets/index.js';
import { demoTeamsScenario, startTeamsSimulator, type TeamsSimulator } from '../../../simulators/teams/index.js';

/** The demo's simulators and the secret files vigil reads to watch them, for the tests of the status pages. */
export interface DemoUpstreams {
  secrets: SecretsSimulator;
  agents: AgentSimulator;
  teams: TeamsSimulator;
  organization: string;
  /** Writes a file only its owner reads into the test's directory; its path. */
  file(name: string, content: string): string;
  /** The DR operation, agent and teams tokens, and where the alert sink stores. */
  files: DemoSecrets;
  close(): Promise<void>;
}

const ROOT = new URL('../../..', import.meta.url).pathname;

/** The pages load the bundle `npm run build` makes: build it from the sources under test. */
export function buildUi(): void {
  execFileSync('npm', ['run', '--silent', 'build:ui'], { cwd: ROOT, stdio: 'ignore' });
}

export async function startDemoUpstreams(dir: string, secretsScenario: SecretsScenario): Promise<DemoUpstreams> {
  const secrets = await startSecretsSimulator(secretsScenario, { walTickMs: 1000 });
  const agents = await startAgentSimulator(demoAgentScenario());
  const teamsScenario = demoTeamsScenario();
  const teams = await startTeamsSimulator(teamsScenario);
  const organization = teamsScenario.organizations[0]!.name;
  const file = (name: string, content: string) => {
    writeFileSync(join(dir, name), content, { mode: 0o600 });
    return join(dir, name);
  };
  const files = {
    drOperationTokenFile: file('dr-token', secrets.cluster('dr-secondary').drOperationToken()),
    agentTokenFile: file('agent-token', agents.readToken),
    teamsTokenFile: file('teams-token', teams.ownerToken(organization)),
    alertStore: join(dir, 'alerts.db'),
  };
  const close = async () => {
    await Promise.all([secrets.close(), agents.close(), teams.close()]);
  };
  return { secrets, agents, teams, organization, file, files, close };
}
