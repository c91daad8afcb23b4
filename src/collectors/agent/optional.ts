import { upFamily } from '../../metrics/family.js';
import { UpstreamError } from '../../upstream/errors.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import type { AgentAuth } from './auth.js';

/** What every cluster-agent family shares: where its values come from, and the per-endpoint `_up`. */

export const fromPoll = (endpoint: string): string => `from a scheduled poll of /v1/agent/${endpoint}`;

/** `/agent/health` has its own `_up` (scheduler_agent_up); every other endpoint a part reads gets this one. */
export const agentEndpointUp = upFamily({
  name: 'scheduler_agent_endpoint_up',
  help: '1 when the last scheduled poll of this optional agent endpoint (members, servers, self, host, token, autopilot, license; nodes: every page of the listing) succeeded and parsed, else 0; absent when the endpoint is off in the config or does not apply to the agent (members on a client, servers on a server, nodes refused for want of node:read, license on the community edition).',
  section: 'agent',
  labels: ['target', 'endpoint'],
});

type Declared<C extends AgentAuth, S, P, V, K extends string> = Omit<Endpoint<C, string, S, P, V, K>, 'id' | 'method' | 'labels' | 'up' | 'send' | 'switch'> & {
  readonly default: boolean;
  readonly help: string;
};

/**
 * An optional endpoint of the agent, `agent/<name>`: called with the token, behind the switch
 * `<name>` (its default and what it needs or costs: `help`), its series told apart from the other
 * optional endpoints' by the label `endpoint="<name>"` of their shared `_up` (the one spelling of
 * the id the series keep).
 */
export function optional<S, P = S, V = P, const K extends string = string, C extends AgentAuth = AgentAuth>(
  name: K,
  declared: Declared<C, S, P, V, K>,
): Endpoint<C, string, S, P, V, K> {
  const { default: on, help, read, ...rest } = declared;
  return endpoint({
    id: `agent/${name}`,
    method: 'GET',
    labels: { endpoint: name },
    send: (c: C) => c.authorized(),
    up: agentEndpointUp,
    ...rest,
    read: async (get, c, item, within) => {
      try {
        return read ? await read(get, c, item, within) : ((await get()).value as unknown as V);
      } catch (e) {
        throw ownTokenRefused(e);
      }
    },
    switch: { key: name, default: on, help },
  });
}

/**
 * Since 1.10.1 a server answers a call with an expired (or deleted) ACL token with 500 "rpc error:
 * ACL token expired" where older ones answered 403. It is vigil's own credential that is refused,
 * never the agent's failure: read as the 403 it was (`http_4xx`, which pages no agent down).
 */
export function ownTokenRefused(e: unknown): unknown {
  if (!(e instanceof UpstreamError) || e.status !== 500 || !/ACL token (expired|not found)/i.test(e.message)) return e;
  return new UpstreamError('http_4xx', `${e.message} (vigil's own token is refused: replace token_file)`, 403);
}
