import { clientFor, type BuildContext } from '../../jobs/context.js';
import type { Job, PartOutcome } from '../../jobs/part.js';
import { optionalSecretFile } from '../../jobs/secret-file.js';
import { renderGroup } from '../../metrics/render.js';
import type { AgentAuth } from '../../upstream/agent/api.js';
import { defineCollector } from '../collector.js';
import { collectEndpoint, switchedOn } from '../endpoint.js';
import { agentEndpointUp } from './endpoint-up.js';
import { AGENT_ENDPOINTS, nodesEndpoint, type AgentCall } from './endpoints.js';
import { expectedServersFamily } from './expected-servers.js';
import { agentUp, healthFamilies } from './health.js';
import { hostFamilies } from './host.js';
import { membersFamilies } from './members.js';
import { membersPoller } from './members-poller.js';
import { nodesFamilies } from './nodes.js';
import { selfFamilies } from './self.js';
import { serversFamilies } from './servers.js';
import { agentTarget, type AgentTarget } from './target.js';

export const AGENT_COLLECTOR = 'scheduler_agent';
/** The node listing's own job: its runs, failures and durations are told apart from the agent's. */
export const AGENT_NODES_COLLECTOR = 'scheduler_nodes';

/**
 * Two jobs per agent target: every endpoint it switches on fetched concurrently, one part each, so a
 * failing endpoint fails only its own series (health always polled); and, when switched on, the node
 * listing on its own schedule.
 */
function agentJobs(t: AgentTarget, ctx: BuildContext): Job[] {
  const client = clientFor('agents', t, ctx);
  const pollMembers = membersPoller(t, ctx);
  const endpoints = switchedOn(AGENT_ENDPOINTS, t);
  const nodes = { perPage: t.node_page_size, maxPages: t.max_node_pages, maxNodes: t.max_nodes };

  const callFor = (signal: AbortSignal): AgentCall => {
    // Read once a run (a rotated token is picked up by the next one), and only if a part needs it.
    let auth: Promise<AgentAuth> | undefined;
    return { client, signal, pollMembers, nodes, auth: () => (auth ??= optionalSecretFile(t.token_file, 'token_file').then((token) => ({ token }))) };
  };
  const collect = (e: (typeof endpoints)[number], signal: AbortSignal) =>
    collectEndpoint(e, callFor(signal), { context: { target: t.name }, turns: ctx.turns });

  const run = (signal: AbortSignal): Promise<PartOutcome[]> => {
    const expected: PartOutcome = { part: 'expected', group: renderGroup([expectedServersFamily], t.expected_servers, { target: t.name }) };
    return Promise.all([expected, ...endpoints.filter((e) => e !== nodesEndpoint).map((e) => collect(e, signal))]);
  };
  const jobs: Job[] = [{ collector: AGENT_COLLECTOR, target: t.name, schedule: t.schedule, run }];
  if (endpoints.includes(nodesEndpoint)) {
    jobs.push({ collector: AGENT_NODES_COLLECTOR, target: t.name, schedule: t.nodes_schedule, run: async (signal) => [await collect(nodesEndpoint, signal)] });
  }
  return jobs;
}

/** The cluster agent: its health (always), and the gossip members, known servers, self stats and host each switched on. */
export const agentCollector = defineCollector({
  kind: 'agents',
  target: agentTarget,
  endpoints: AGENT_ENDPOINTS,
  families: [
    agentUp,
    ...healthFamilies,
    agentEndpointUp,
    ...selfFamilies,
    ...membersFamilies,
    ...serversFamilies,
    ...hostFamilies,
    ...nodesFamilies,
    expectedServersFamily,
  ],
  derived: [expectedServersFamily],
  state: () => undefined,
  jobs: (targets, ctx) => targets.flatMap((t) => agentJobs(t, ctx)),
});
