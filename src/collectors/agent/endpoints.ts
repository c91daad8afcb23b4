import {
  fetchHealth,
  fetchHost,
  fetchMembersBytes,
  fetchSelf,
  fetchServers,
  membersNotApplicable,
  nodesNotApplicable,
  authHeaders,
  serversNotApplicable,
  type AgentAuth,
} from '../../upstream/agent/api.js';
import { agentHealthResponse } from '../../upstream/agent/health.js';
import { agentHostResponse } from '../../upstream/agent/host.js';
import { agentMembersResponse } from '../../upstream/agent/members.js';
import { listNodes } from '../../upstream/agent/node-list.js';
import { agentNodesPage } from '../../upstream/agent/nodes.js';
import { agentSelfResponse } from '../../upstream/agent/self.js';
import { agentServersResponse } from '../../upstream/agent/servers.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { z } from 'zod';
import type { Family } from '../../metrics/family.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { agentEndpointUp } from './endpoint-up.js';
import { agentUp, healthFamilies } from './health.js';
import { hostFamilies } from './host.js';
import { memberPollFamilies, memberSeriesDropped } from './members.js';
import { NodeTally } from './node-tally.js';
import { nodesFamilies } from './nodes.js';
import type { MembersResult } from './members-poller.js';
import { selfFamilies } from './self.js';
import { serversFamilies } from './servers.js';

/** What every call to an agent takes: the target's pooled client, its token (read once a run, if a part needs it), the run's signal. */
export interface AgentCall {
  client: UpstreamClient;
  auth: () => Promise<AgentAuth>;
  signal: AbortSignal;
  /** The target's gossip pool poller, which counts the members left out across polls. */
  pollMembers: (body: Buffer) => Promise<MembersResult>;
  /** How the node listing pages and caps (the target's node_page_size, max_node_pages, max_nodes). */
  nodes: { perPage: number; maxPages: number; maxNodes: number };
}

/** Health needs no ACL: polled without the token, so `scheduler_agent_up` says whether the agent answers whatever the token is worth. */
export const healthEndpoint = endpoint({
  id: 'agent/health',
  method: 'GET',
  path: '/v1/agent/health',
  schema: agentHealthResponse,
  when: 'every run, without the token',
  part: 'health',
  needs: 'none (polled without the token)',
  fetch: ({ client, signal }: AgentCall) => fetchHealth(client, {}, signal),
  up: agentUp,
  families: healthFamilies,
});

/**
 * An optional endpoint of `/v1/agent/<name>`: called with the token, behind the switch `<name>`, its
 * part told apart from the others' by the `endpoint` label of their shared `_up`.
 */
function optional<V, const K extends string>(
  name: K,
  schema: z.ZodType,
  fetch: (call: AgentCall) => Promise<V>,
  families: readonly Family<V>[],
  declared: { default: boolean; help: string; path?: string; when?: string } & Pick<Endpoint<AgentCall, V>, 'rendered' | 'notApplicable' | 'needs'>,
): Endpoint<AgentCall, V, K> {
  const { default: on, help, path = `/v1/agent/${name}`, when = 'every run, behind its switch', ...rest } = declared;
  return endpoint({
    id: `agent/${name}`,
    method: 'GET',
    path,
    schema,
    when,
    part: name,
    labels: { endpoint: name },
    fetch,
    up: agentEndpointUp,
    families,
    ...rest,
    switch: { key: name, default: on, help },
  });
}

/** The gossip pool a server sees; a large one is decoded and rendered off the collection thread. */
export const membersEndpoint = optional(
  'members',
  agentMembersResponse,
  async ({ client, auth, signal, pollMembers }) => pollMembers(await fetchMembersBytes(client, await auth(), signal)),
  [memberSeriesDropped],
  {
    default: true,
    help: 'the servers gossip pool (node:read); one series per member up to max_members',
    needs: 'node:read',
    rendered: { lines: (v: MembersResult) => v.group, families: memberPollFamilies },
    notApplicable: { test: membersNotApplicable, means: 'the agent runs no server (500 "not a server", or 501)' },
  },
);

export const serversEndpoint = optional(
  'servers',
  agentServersResponse,
  async ({ client, auth, signal }) => fetchServers(client, await auth(), signal),
  serversFamilies,
  {
    default: true,
    help: 'the servers a client knows (agent:read)',
    needs: 'agent:read',
    notApplicable: { test: serversNotApplicable, means: 'the agent runs no client (501)' },
  },
);

export const selfEndpoint = optional('self', agentSelfResponse, async ({ client, auth, signal }) => fetchSelf(client, await auth(), signal), selfFamilies, {
  default: true,
  help: 'raft, gossip and runtime stats, and the build (agent:read)',
  needs: 'agent:read',
});

export const hostEndpoint = optional('host', agentHostResponse, async ({ client, auth, signal }) => fetchHost(client, await auth(), signal), hostFamilies, {
  default: false,
  help: 'disk sizes of the host (agent:read, and the agent must allow debug endpoints); off by default: the answer also carries host details (environment, network) that not every operator wants an exporter to fetch',
  needs: 'agent:read (and debug endpoints allowed on the agent)',
});

/**
 * The region's client nodes, page by page on the target's own `nodes_schedule`: any agent forwards the
 * listing to its servers, so one or two agents of a region are enough to switch it on for.
 */
export const nodesEndpoint = optional(
  'nodes',
  agentNodesPage,
  async ({ client, auth, signal, nodes }) => {
    const tally = new NodeTally(nodes.maxNodes);
    const pages = await listNodes(client, { headers: authHeaders(await auth()), perPage: nodes.perPage, maxPages: nodes.maxPages, signal }, tally);
    return tally.listing(pages);
  },
  nodesFamilies,
  {
    default: true,
    path: '/v1/nodes',
    when: 'on nodes_schedule, behind its switch, page by page',
    help: 'the client nodes of the region (node:read, as members needs): counts by datacenter, pool, class, status, eligibility and drain, and a series per node not ready or draining up to max_nodes; one request per node_page_size nodes on nodes_schedule',
    needs: 'node:read',
    notApplicable: { test: nodesNotApplicable, means: 'the token may not read nodes (403 without node:read)' },
  },
);

export const AGENT_ENDPOINTS = [healthEndpoint, membersEndpoint, serversEndpoint, selfEndpoint, hostEndpoint, nodesEndpoint] as const;
