import {
  fetchHealth,
  fetchHost,
  fetchMembersBytes,
  fetchSelf,
  fetchServers,
  membersNotApplicable,
  serversNotApplicable,
  type AgentAuth,
} from '../../upstream/agent/api.js';
import { agentHealthResponse } from '../../upstream/agent/health.js';
import { agentHostResponse } from '../../upstream/agent/host.js';
import { agentMembersResponse } from '../../upstream/agent/members.js';
import { agentSelfResponse } from '../../upstream/agent/self.js';
import { agentServersResponse } from '../../upstream/agent/servers.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { endpoint } from '../endpoint.js';
import { agentEndpointUp } from './endpoint-up.js';
import { agentUp, healthFamilies } from './health.js';
import { hostFamilies } from './host.js';
import { memberPollFamilies, memberSeriesDropped } from './members.js';
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
}

/** Health needs no ACL: polled without the token, so `scheduler_agent_up` says whether the agent answers whatever the token is worth. */
export const healthEndpoint = endpoint({
  id: 'agent/health',
  method: 'GET',
  path: '/v1/agent/health',
  schema: agentHealthResponse,
  when: 'every run, without the token',
  part: 'health',
  fetch: ({ client, signal }: AgentCall) => fetchHealth(client, {}, signal),
  up: agentUp,
  families: healthFamilies,
});

/** The gossip pool a server sees; a large one is decoded and rendered off the collection thread. */
export const membersEndpoint = endpoint({
  id: 'agent/members',
  method: 'GET',
  path: '/v1/agent/members',
  schema: agentMembersResponse,
  when: 'every run, behind its switch',
  part: 'members',
  labels: { endpoint: 'members' },
  fetch: async ({ client, auth, signal, pollMembers }: AgentCall) => pollMembers(await fetchMembersBytes(client, await auth(), signal)),
  up: agentEndpointUp,
  families: [memberSeriesDropped],
  rendered: { lines: (v: MembersResult) => v.group, families: memberPollFamilies },
  notApplicable: { test: membersNotApplicable, means: 'the agent runs no server (500 "not a server", or 501)' },
  switch: { key: 'members', default: true, help: 'the servers gossip pool (agent:read); one series per member up to max_members' },
});

export const serversEndpoint = endpoint({
  id: 'agent/servers',
  method: 'GET',
  path: '/v1/agent/servers',
  schema: agentServersResponse,
  when: 'every run, behind its switch',
  part: 'servers',
  labels: { endpoint: 'servers' },
  fetch: async ({ client, auth, signal }: AgentCall) => fetchServers(client, await auth(), signal),
  up: agentEndpointUp,
  families: serversFamilies,
  notApplicable: { test: serversNotApplicable, means: 'the agent runs no client (501)' },
  switch: { key: 'servers', default: true, help: 'the servers a client knows (agent:read)' },
});

export const selfEndpoint = endpoint({
  id: 'agent/self',
  method: 'GET',
  path: '/v1/agent/self',
  schema: agentSelfResponse,
  when: 'every run, behind its switch',
  part: 'self',
  labels: { endpoint: 'self' },
  fetch: async ({ client, auth, signal }: AgentCall) => fetchSelf(client, await auth(), signal),
  up: agentEndpointUp,
  families: selfFamilies,
  switch: { key: 'self', default: true, help: 'raft, gossip and runtime stats, and the build (agent:read)' },
});

export const hostEndpoint = endpoint({
  id: 'agent/host',
  method: 'GET',
  path: '/v1/agent/host',
  schema: agentHostResponse,
  when: 'every run, behind its switch',
  part: 'host',
  labels: { endpoint: 'host' },
  fetch: async ({ client, auth, signal }: AgentCall) => fetchHost(client, await auth(), signal),
  up: agentEndpointUp,
  families: hostFamilies,
  switch: {
    key: 'host',
    default: false,
    help: 'disk sizes of the host (agent:read, and the agent must allow debug endpoints); off by default: the answer also carries host details (environment, network) that not every operator wants an exporter to fetch',
  },
});

export const AGENT_ENDPOINTS = [healthEndpoint, membersEndpoint, serversEndpoint, selfEndpoint, hostEndpoint] as const;
