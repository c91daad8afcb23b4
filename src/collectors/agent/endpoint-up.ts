import { upFamily } from '../../metrics/family.js';

/** What every cluster-agent family shares: where its values come from, and the per-endpoint `_up`. */

export const fromPoll = (endpoint: string): string => `from a scheduled poll of /v1/agent/${endpoint}`;

/** `/agent/health` has its own `_up` (scheduler_agent_up); every other endpoint a part reads gets this one. */
export const agentEndpointUp = upFamily({
  name: 'scheduler_agent_endpoint_up',
  help: '1 when the last scheduled poll of this optional agent endpoint (members, servers, self, host; nodes: every page of the listing) succeeded and parsed, else 0; absent when the endpoint is off in the config or does not apply to the agent (members on a client, servers on a server, nodes refused for want of node:read).',
  section: 'agent',
  labels: ['target', 'endpoint'],
});
