import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgentScenario } from '../../simulators/agent/scenario.js';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';

/**
 * Each simulator keeps an idle connection as long as the service it stands for does, and says so
 * the way Node does (`Keep-Alive: timeout=<s>`): a client polling every 15 s must find its
 * connections open where the real service would keep them.
 */
let secrets: SecretsSimulator;
let agents: AgentSimulator;
let teams: TeamsSimulator;

beforeAll(async () => {
  [secrets, agents, teams] = await Promise.all([
    startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 }),
    startAgentSimulator(demoAgentScenario()),
    startTeamsSimulator({ organizations: [{ name: 'small', teams: 2 }] }),
  ]);
});
afterAll(async () => {
  await Promise.all([secrets.close(), agents.close(), teams.close()]);
});

/** The answer's connection headers, on a kept-alive connection. */
function connectionHeaders(url: string): Promise<{ connection?: string; keepAlive?: string }> {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          agent.destroy();
          resolve({ connection: res.headers.connection, keepAlive: res.headers['keep-alive'] as string | undefined });
        });
      })
      .on('error', reject);
  });
}

describe('idle keep-alive connections', () => {
  it('are kept 5 minutes by a secrets cluster and by each of its nodes (the listener default)', async () => {
    const cluster = secrets.cluster('dr-primary');
    expect(await connectionHeaders(`${cluster.url}/v1/sys/health`)).toEqual({ connection: 'keep-alive', keepAlive: 'timeout=300' });
    const node = [...cluster.nodes.values()][0] as string;
    expect(await connectionHeaders(`${node}/v1/sys/health`)).toEqual({ connection: 'keep-alive', keepAlive: 'timeout=300' });
  });

  it('are never closed by an agent, whose server sets no idle timeout', async () => {
    const first = demoAgentScenario().agents[0]?.name as string;
    expect(await connectionHeaders(`${agents.agent(first).url}/v1/agent/health`)).toEqual({ connection: 'keep-alive', keepAlive: undefined });
  });

  it("are kept Node's 5 s by the teams service, which documents none", async () => {
    expect(await connectionHeaders(`${teams.url}/api/v2/ping`)).toEqual({ connection: 'keep-alive', keepAlive: 'timeout=5' });
  });
});
