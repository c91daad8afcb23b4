import { family, upFamily, type Family } from '../../metrics/family.js';
import { HEALTH_ROLES, type AgentHealth } from '../../upstream/agent/health.js';
import { fromPoll } from './endpoint-up.js';

/** `/agent/health`: is the agent there, and is each of its parts (client, server) healthy. */

export const agentUp = upFamily({
  name: 'scheduler_agent_up',
  help: `1 when the agent answered /v1/agent/health with a health body (200, or 500 when unhealthy), else 0; ${fromPoll('health')}.`,
  section: 'agent',
  labels: ['target'],
});

export const healthFamilies: readonly Family<AgentHealth>[] = [
  family<AgentHealth>({
    name: 'scheduler_agent_health_ok',
    help: `1 when the agent reports this part (role) healthy, else 0; absent for a role the agent does not run or whose ok it does not say; ${fromPoll('health')}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'role'],
    samples: (h) =>
      HEALTH_ROLES.flatMap((role) => {
        const ok = h[role]?.ok;
        return ok === undefined ? [] : [{ labels: { role }, value: Number(ok) }];
      }),
  }),
];
