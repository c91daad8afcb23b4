import type { z } from 'zod';
import type { UpstreamClient } from '../client.js';
import type { UpstreamError } from '../errors.js';
import { parseBody } from '../parse.js';
import { agentHealthResponse, type AgentHealth } from './health.js';
import { agentHostResponse, type AgentHost } from './host.js';
import { agentSelfResponse, type AgentSelf } from './self.js';
import { agentServersResponse, type AgentServers } from './servers.js';

/** The cluster agent's `/v1/agent/*` endpoints vigil polls, each returning a typed, validated value. */
export interface AgentAuth {
  token?: string | undefined;
}

export const authHeaders = (auth: AgentAuth): Record<string, string> => (auth.token ? { 'x-scheduler-token': auth.token } : {});

async function get<S extends z.ZodType>(
  client: UpstreamClient,
  name: string,
  schema: S,
  auth: AgentAuth,
  signal: AbortSignal,
  dataStatuses: readonly number[] = [],
): Promise<z.output<S>> {
  const endpoint = `agent/${name}`;
  const res = await client.json({ endpoint, path: `/v1/${endpoint}`, headers: authHeaders(auth), dataStatuses, signal });
  return parseBody(schema, res.body, endpoint);
}

/** An unhealthy agent answers 500 with the health body: that is data, not a transport failure. */
export const fetchHealth = (c: UpstreamClient, auth: AgentAuth, signal: AbortSignal): Promise<AgentHealth> =>
  get(c, 'health', agentHealthResponse, auth, signal, [500]);

export const fetchServers = (c: UpstreamClient, auth: AgentAuth, signal: AbortSignal): Promise<AgentServers> =>
  get(c, 'servers', agentServersResponse, auth, signal);

export const fetchSelf = (c: UpstreamClient, auth: AgentAuth, signal: AbortSignal): Promise<AgentSelf> => get(c, 'self', agentSelfResponse, auth, signal);

export const fetchHost = (c: UpstreamClient, auth: AgentAuth, signal: AbortSignal): Promise<AgentHost> => get(c, 'host', agentHostResponse, auth, signal);

/** `/agent/members` undecoded: a large gossip pool is decoded off the collection thread (see `src/collectors/agent/members-poll.ts`). */
export const fetchMembersBytes = async (c: UpstreamClient, auth: AgentAuth, signal: AbortSignal): Promise<Buffer> =>
  (await c.bytes({ endpoint: 'agent/members', path: '/v1/agent/members', headers: authHeaders(auth), signal })).body;

/**
 * `/agent/members` on an agent that runs no server: the agent says so with 500 (`client agent is not
 * a server`) or 501. Not the agent being down, and not a failure.
 */
export const membersNotApplicable = (err: UpstreamError): boolean => err.status === 501 || (err.status === 500 && /not a server/i.test(err.message));

/** `/agent/servers` on an agent that runs no client: 501. */
export const serversNotApplicable = (err: UpstreamError): boolean => err.status === 501;

/**
 * `/v1/nodes` refused for want of node:read (403): the token is not meant to see the nodes, so the
 * listing does not apply rather than fails; every other status is a failure.
 */
export const nodesNotApplicable = (err: UpstreamError): boolean => err.status === 403;
