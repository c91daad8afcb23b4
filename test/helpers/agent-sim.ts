import type { AgentSimulator } from '../../simulators/agent/index.js';

/** Calls the `/_sim/` admin API of one simulated agent (never behind ACLs or faults). */
export async function admin(sim: AgentSimulator, agent: string, path: string, body?: unknown, method = 'POST'): Promise<Response> {
  return fetch(`${sim.agent(agent).url}/_sim/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
