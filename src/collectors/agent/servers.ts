import { family, single, type Family } from '../../metrics/family.js';
import type { AgentServers } from '../../upstream/agent/servers.js';
import { fromPoll } from './endpoint-up.js';

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
