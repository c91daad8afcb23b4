import { defineArea } from '../collector.js';
import { membersFamilies } from './members.js';
import { agentEndpointUp } from './endpoint-up.js';
import { expectedServersFamily } from './expected-servers.js';
import { agentUp, healthFamilies } from './health.js';
import { hostFamilies } from './host.js';
import { memberSeriesDropped } from './members.js';
import { selfFamilies } from './self.js';
import { serversFamilies } from './servers.js';
import { collectPart, type Job, type PartOutcome } from '../../jobs/part.js';
import type { AgentTarget } from '../../config/schema.js';
import type { Family } from '../../metrics/family.js';
import { renderGroup, type RenderedGroup } from '../../metrics/render.js';
import { fetchHealth, fetchHost, fetchSelf, fetchServers, membersNotApplicable, serversNotApplicable, type AgentAuth } from '../../upstream/agent/api.js';
import type { UpstreamError } from '../../upstream/errors.js';
import { clientFor, type BuildContext } from '../../jobs/context.js';
import { membersPoller, type MembersResult } from './members-poller.js';
import { optionalSecretFile } from '../../jobs/secret-file.js';

export const AGENT_COLLECTOR = 'scheduler_agent';

/**
 * One job per agent target: every enabled endpoint fetched concurrently, one part each, so a failing
 * endpoint fails only its own series. Health is always polled, without the token (it needs no ACL),
 * so `scheduler_agent_up` says whether the agent answers whatever the token is worth.
 */
export function agentJobs(t: AgentTarget, ctx: BuildContext): Job[] {
  const client = clientFor('agents', t, ctx);
  const pollMembers = membersPoller(t, ctx);

  const run = (signal: AbortSignal): Promise<PartOutcome[]> => {
    // Read once a run (a rotated token is picked up by the next one), and only if a part needs it.
    let auth: Promise<AgentAuth> | undefined;
    const token = () => (auth ??= optionalSecretFile(t.token_file, 'token_file').then((token) => ({ token })));

    const optional = <T>(
      name: 'members' | 'servers' | 'self' | 'host',
      fetch: (auth: AgentAuth) => Promise<T>,
      families: readonly Family<T>[],
      notApplicable?: (err: UpstreamError) => boolean,
      rendered?: (value: T) => RenderedGroup,
    ): Array<Promise<PartOutcome>> =>
      t[name]
        ? [
            collectPart({
              part: name,
              context: { target: t.name, endpoint: name },
              fetch: async () => fetch(await token()),
              families,
              up: agentEndpointUp,
              notApplicable,
              rendered,
              turns: ctx.turns,
            }),
          ]
        : [];

    const expected: PartOutcome = { part: 'expected', group: renderGroup([expectedServersFamily], t.expected_servers, { target: t.name }) };
    return Promise.all([
      expected,
      collectPart({
        part: 'health',
        context: { target: t.name },
        fetch: () => fetchHealth(client, {}, signal),
        families: healthFamilies,
        up: agentUp,
        turns: ctx.turns,
      }),
      ...optional<MembersResult>(
        'members',
        (a) => pollMembers(client, a, signal),
        [memberSeriesDropped],
        membersNotApplicable,
        (v) => v.group,
      ),
      ...optional('servers', (a) => fetchServers(client, a, signal), serversFamilies, serversNotApplicable),
      ...optional('self', (a) => fetchSelf(client, a, signal), selfFamilies),
      ...optional('host', (a) => fetchHost(client, a, signal), hostFamilies),
    ]);
  };

  return [{ collector: AGENT_COLLECTOR, target: t.name, schedule: t.schedule, run }];
}

/** The cluster agent: its health (always), and the gossip members, known servers, self stats and host each enabled. */
export const agentArea = defineArea({
  kind: 'agents',
  endpoints: [
    { method: 'GET', path: '/v1/agent/health', feeds: [agentUp, ...healthFamilies] },
    { method: 'GET', path: '/v1/agent/members', feeds: [agentEndpointUp, ...membersFamilies] },
    { method: 'GET', path: '/v1/agent/servers', feeds: [agentEndpointUp, ...serversFamilies] },
    { method: 'GET', path: '/v1/agent/self', feeds: [agentEndpointUp, ...selfFamilies] },
    { method: 'GET', path: '/v1/agent/host', feeds: [agentEndpointUp, ...hostFamilies] },
  ],
  families: [agentUp, ...healthFamilies, agentEndpointUp, ...selfFamilies, ...membersFamilies, ...serversFamilies, ...hostFamilies, expectedServersFamily],
  jobs: (targets, ctx) => targets.flatMap((t) => agentJobs(t, ctx)),
});
