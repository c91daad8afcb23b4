import { applyFaults, noFaults } from '../common/faults.js';
import { IDLE_KEEP_ALIVE_MS, listen, type RunningServer, type ServeTls } from '../common/http.js';
import { Acl } from './acl.js';
import { ADMIN_PREFIX, handleAdmin } from './admin-api.js';
import type { AgentModel } from './agent.js';
import { handleApi } from './api.js';
import { buildAgents, buildFleets, buildWorkloads } from './cluster.js';
import type { NodeFleet } from './nodes.js';
import type { AgentProfile } from './profiles.js';
import { parseAgentScenario, type AgentScenario } from './scenario.js';
import type { Workload } from './workload.js';

export { demoAgentScenario, parseAgentScenario } from './scenario.js';
export type { AclPolicy, AgentRole, AgentScenario, AgentSpec } from './scenario.js';
export { CLIENT_NOT_SERVER } from './api.js';
export { AGENT_PROFILES, type AgentProfile } from './profiles.js';

export interface SimulatedAgent {
  readonly name: string;
  readonly url: string;
  /** API requests this agent has answered. */
  requests(): number;
}

export interface AgentSimulator {
  readonly agents: ReadonlyMap<string, SimulatedAgent>;
  agent(name: string): SimulatedAgent;
  /** A token with agent:read, node:read, operator:read, namespace:list-jobs and namespace:read-job (only needed when ACLs are on). */
  readonly readToken: string;
  /** A token with every policy. */
  readonly managementToken: string;
  close(): Promise<void>;
}

/** Starts one HTTP listener per agent of the scenario; every agent has its own faults. */
export async function startAgentSimulator(
  scenario: AgentScenario,
  opts: { host?: string; tls?: ServeTls; profile?: AgentProfile } = {},
): Promise<AgentSimulator> {
  const checked = parseAgentScenario(scenario);
  const acl = new Acl(checked.acl);
  const models = buildAgents(checked);
  const fleets = buildFleets(checked, models);
  const workloads = buildWorkloads(checked, models);
  const find = (id: string, from: AgentModel): AgentModel | undefined =>
    id === 'leader' ? models.find((m) => m.region === from.region && m.raftState() === 'Leader') : models.find((m) => m.name === id || m.nodeId === id);

  const servers: RunningServer[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all(servers.map((s) => s.close()));
  };
  try {
    for (const [i, agent] of models.entries()) {
      const faults = noFaults();
      const fleet = fleets.get(agent.region) as NodeFleet;
      const workload = workloads.get(agent.region) as Workload;
      const apiCtx = { agent, acl, fleet, workload, profile: opts.profile ?? 'current', find: (id: string) => find(id, agent) };
      const server = await listen(
        async (req, res) => {
          if ((req.url ?? '').startsWith(ADMIN_PREFIX)) return handleAdmin({ agent, faults, fleet, workload, acl }, req, res);
          if (await applyFaults(faults, res)) return;
          if (faults.churn && (req.url ?? '').split('?')[0] === '/v1/agent/members') agent.pool?.churn();
          handleApi(apiCtx, req, res);
        },
        checked.agents[i]?.port ?? 0,
        opts.host ?? '127.0.0.1',
        opts.tls,
        IDLE_KEEP_ALIVE_MS.agent,
      );
      servers.push(server);
      agent.httpPort = server.port;
      agent.url = server.url;
    }
  } catch (err) {
    await closeAll();
    throw err;
  }

  const agents = new Map<string, SimulatedAgent>(models.map((m, i) => [m.name, { name: m.name, url: m.url, requests: () => servers[i]!.requests() }]));
  return {
    agents,
    agent(name) {
      const a = agents.get(name);
      if (!a) throw new Error(`no simulated agent named ${name}`);
      return a;
    },
    readToken: acl.readToken,
    managementToken: acl.managementToken,
    close: closeAll,
  };
}
