import { z } from 'zod';
import { family, single, type Family } from '../../metrics/family.js';
import { fromPoll, optional } from './optional.js';

/** `GET /v1/agent/servers` (agents with a client part): the servers the client knows, as `ip:port`; Go's nil list is `null`. */
export const agentServersResponse = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);

export type AgentServers = z.output<typeof agentServersResponse>;

/** `/agent/servers`: how many servers a client knows (0 means it cannot reach the cluster). */

export const serversFamilies: readonly Family<AgentServers>[] = [
  family<AgentServers>({
    name: 'scheduler_agent_known_servers',
    help: `Number of servers the agent's client part knows; ${fromPoll('servers')}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((s) => s.length),
  }),
];

export const serversEndpoint = optional('servers', {
  path: '/v1/agent/servers',
  schema: agentServersResponse,
  needs: 'agent:read',
  families: serversFamilies,
  notApplicable: { test: (err) => err.status === 501, means: 'the agent runs no client (501)' },
  default: true,
  help: 'the servers a client knows (agent:read)',
});
