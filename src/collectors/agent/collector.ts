import { clientFor, type BuildContext } from '../../jobs/context.js';
import type { Job, PartOutcome } from '../../jobs/part.js';
import { optionalSecretFile } from '../../jobs/secret-file.js';
import { renderGroup } from '../../metrics/render.js';
import type { AgentAuth } from '../../upstream/agent/api.js';
import { defineCollector } from '../collector.js';
import { collectEndpoint, switchedOn } from '../endpoint.js';
import { agentEndpointUp } from './endpoint-up.js';
import { AGENT_ENDPOINTS, tokenEndpoint, type AgentCall } from './endpoints.js';
import { expectedServersFamily } from './expected-servers.js';
import { agentUp, healthFamilies } from './health.js';
import { hostFamilies } from './host.js';
import { membersFamilies } from './members.js';
import { membersPoller } from './members-poller.js';
import { selfFamilies } from './self.js';
import { serversFamilies } from './servers.js';
import { agentTarget, type AgentTarget } from './target.js';
import { tokenExpiryFamilies } from './token-expiry.js';

export const AGENT_COLLECTOR = 'scheduler_agent';

/**
 * One job per agent target: every endpoint it switches on fetched concurrently, one part each, so a
 * failing endpoint fails only its own series. Health is always polled.
 */
function agentJobs(t: AgentTarget, ctx: BuildContext): Job[] {
  const client = clientFor('agents', t, ctx);
  const pollMembers = membersPoller(t, ctx);
  // Without a token file vigil calls as the anonymous token, which has no expiry to ask about.
  const endpoints = switchedOn(AGENT_ENDPOINTS, t).filter((e) => e !== tokenEndpoint || t.token_file !== undefined);

  const run = (signal: AbortSignal): Promise<PartOutcome[]> => {
    // Read once a run (a rotated token is picked up by the next one), and only if a part needs it.
    let auth: Promise<AgentAuth> | undefined;
    const call: AgentCall = {
      client,
      signal,
      pollMembers,
      auth: () => (auth ??= optionalSecretFile(t.token_file, 'token_file').then((token) => ({ token }))),
    };
    const expected: PartOutcome = { part: 'expected', group: renderGroup([expectedServersFamily], t.expected_servers, { target: t.name }) };
    return Promise.all([expected, ...endpoints.map((e) => collectEndpoint(e, call, { context: { target: t.name }, turns: ctx.turns }))]);
  };

  return [{ collector: AGENT_COLLECTOR, target: t.name, schedule: t.schedule, run }];
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
    ...tokenExpiryFamilies,
    expectedServersFamily,
  ],
  derived: [expectedServersFamily],
  state: () => undefined,
  jobs: (targets, ctx) => targets.flatMap((t) => agentJobs(t, ctx)),
});
