import type http from 'node:http';
import { isIP } from 'node:net';
import { route, sendEmpty, sendJson, sendJsonBytes, sendText } from '../common/http.js';
import type { Acl } from './acl.js';
import type { AgentModel } from './agent.js';
import { hostBody } from './host.js';
import { sendLicense } from './license.js';
import { sendMetrics } from './metrics-api.js';
import type { NodeFleet } from './nodes.js';
import { NEXT_TOKEN_HEADER, pagingOf } from './paging.js';
import type { AclPolicy } from './scenario.js';
import { WORKLOAD_ENDPOINTS } from './workload-api.js';
import type { Workload } from './workload.js';
import { selfBody } from './self.js';
import { selfInProfile, type AgentProfile } from './profiles.js';

/** What a client with no gossip pool answers for its members. */
const EMPTY_OBJECT = Buffer.from('{}');

export interface ApiContext {
  agent: AgentModel;
  acl: Acl;
  /** The release whose shapes the agent answers in. */
  profile: AgentProfile;
  /** The client nodes of the agent's region. */
  fleet: NodeFleet;
  /** The jobs, evaluations and deployments of the agent's region. */
  workload: Workload;
  /** Another agent of the simulator by node name or node ID ('leader' for the region's leader). */
  find(id: string): AgentModel | undefined;
}

// The real agent writes errors as bare text, which Go serves as text/plain (sendText).
const INVALID_METHOD = 'Invalid method';
const PERMISSION_DENIED = 'Permission denied';
/** What a client-only agent answers on /agent/members (status 500): it has no gossip pool to list. */
export const CLIENT_NOT_SERVER = 'Unexpected request: client agent is not a server';
/** What a client's RPC forwarding says without a server to forward to (client/rpc.go's noServersErr). */
const NO_SERVERS = 'no servers';

type Answer = (ctx: ApiContext, query: URLSearchParams, res: http.ServerResponse) => void;

interface Endpoint {
  /** The mode the agent must run in; the real agent checks it before it looks at the token. */
  needs?: { mode: 'server' | 'client'; status: number; message: string };
  acl?: AclPolicy;
  answer: Answer;
}

const serverOnly = { mode: 'server', status: 501, message: INVALID_METHOD } as const;
const clientOnly = { mode: 'client', status: 501, message: INVALID_METHOD } as const;

const listServers: Endpoint = {
  needs: clientOnly,
  acl: 'agent:read',
  answer: ({ agent }, _q, res) => sendJson(res, 200, [...agent.knownServers()].sort()),
};

const updateServers: Endpoint = {
  needs: clientOnly,
  acl: 'agent:write',
  answer: ({ agent }, query, res) => {
    const addresses = query.getAll('address');
    if (addresses.length === 0) return sendText(res, 400, 'missing server address');
    const bad = addresses.find((a) => !parseAddress(a));
    if (bad !== undefined) return sendText(res, 400, `failed to parse server address "${bad}": want ip:port`);
    agent.setServers(addresses);
    sendEmpty(res, 200);
  },
};

const join: Endpoint = {
  needs: serverOnly,
  answer: ({ agent }, query, res) => {
    const addresses = query.getAll('address');
    if (addresses.length === 0) return sendText(res, 400, 'missing address to join');
    const failed: string[] = [];
    for (const a of addresses) {
      const parsed = parseAddress(a);
      if (parsed) agent.pool?.join(parsed.ip, parsed.port);
      else failed.push(a);
    }
    const joined = addresses.length - failed.length;
    // Like gossip's Join, the error is only set when no address could be joined at all.
    sendJson(res, 200, { error: joined === 0 ? multiError(failed) : '', num_joined: joined });
  },
};

const forceLeave: Endpoint = {
  needs: serverOnly,
  acl: 'agent:write',
  answer: ({ agent }, query, res) => {
    const node = query.get('node');
    if (!node) return sendText(res, 400, 'missing node to force leave');
    if (!agent.pool?.forceLeave(node)) return sendText(res, 500, `Failed to force leave: no member named "${node}"`);
    sendEmpty(res, 200);
  },
};

const ENDPOINTS: Record<string, Partial<Record<string, Endpoint>>> = {
  '/v1/agent/health': { GET: { answer: ({ agent }, _q, res) => sendHealth(agent, res) } },
  '/v1/agent/members': {
    GET: {
      needs: { mode: 'server', status: 500, message: CLIENT_NOT_SERVER },
      acl: 'node:read',
      answer: ({ agent }, _q, res) => sendJsonBytes(res, 200, agent.pool?.membersBody() ?? EMPTY_OBJECT),
    },
  },
  '/v1/agent/servers': { GET: listServers, POST: updateServers, PUT: updateServers },
  '/v1/agent/self': {
    GET: { acl: 'agent:read', answer: ({ agent, acl, profile }, _q, res) => sendJson(res, 200, selfInProfile(selfBody(agent, acl.enabled), profile)) },
  },
  '/v1/agent/host': { GET: { acl: 'agent:read', answer: sendHost } },
  '/v1/agent/join': { POST: join, PUT: join },
  '/v1/nodes': { GET: { acl: 'node:read', answer: sendNodes } },
  '/v1/operator/autopilot/health': { GET: { acl: 'operator:read', answer: sendAutopilotHealth } },
  '/v1/operator/license': { GET: { acl: 'operator:read', answer: sendLicense } },
  '/v1/metrics': { GET: { answer: sendMetrics } },
  '/v1/agent/force-leave': { POST: forceLeave, PUT: forceLeave },
  ...Object.fromEntries(
    Object.entries(WORKLOAD_ENDPOINTS).map(([path, e]): [string, Partial<Record<string, Endpoint>>] => [
      path,
      { GET: { acl: e.acl, answer: (ctx, query, res) => e.answer(ctx.workload, query, res, ctx.profile === 'current') } },
    ]),
  ),
  '/v1/agent/monitor': {
    GET: { acl: 'agent:read', answer: (_c, _q, res) => sendText(res, 501, 'log streaming is not simulated') },
  },
};

const PPROF_PREFIX = '/v1/agent/pprof/';
const TOKEN_SELF = '/v1/acl/token/self';

/** The ACL token a request carries: needs no policy, only a token the cluster knows and that has not expired. */
function sendTokenSelf({ acl }: ApiContext, method: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  if (method !== 'GET') return sendText(res, 405, INVALID_METHOD);
  const self = acl.self(req);
  if (self.status === 200) sendJson(res, 200, self.body);
  else sendText(res, self.status, self.text);
}

/** Answers one request to the agent API (faults were already applied by the caller). */
export function handleApi(ctx: ApiContext, req: http.IncomingMessage, res: http.ServerResponse): void {
  const { method, path, query } = route(req);
  if (path === TOKEN_SELF) return sendTokenSelf(ctx, method, req, res);
  if (path.startsWith(PPROF_PREFIX)) return sendPprof(ctx, req, path.slice(PPROF_PREFIX.length), res);
  const methods = ENDPOINTS[path];
  if (!methods) return sendText(res, 404, '404 page not found\n');
  const endpoint = methods[method];
  if (!endpoint) return sendText(res, 405, INVALID_METHOD);
  const { needs } = endpoint;
  if (needs && !(needs.mode === 'server' ? ctx.agent.isServer : ctx.agent.isClient)) {
    return sendText(res, needs.status, needs.message);
  }
  const expired = endpoint.acl ? ctx.acl.expiredAnswer(req) : undefined;
  if (expired) return sendText(res, expired.status, expired.text);
  if (endpoint.acl && !ctx.acl.allows(req, endpoint.acl)) return sendText(res, 403, PERMISSION_DENIED);
  endpoint.answer(ctx, query, res);
}

/** An unhealthy agent answers 500 with the same JSON as text, as the real one does. */
function sendHealth(agent: AgentModel, res: http.ServerResponse): void {
  const health = agent.health();
  const ok = Object.values(health).every((part) => part.ok);
  if (ok) sendJson(res, 200, health);
  else sendText(res, 500, JSON.stringify(health));
}

/**
 * A page of the client nodes (`per_page`, `next_token`), the next page's token in its header. The
 * 0.x releases knew no paging: they answer every node whatever was asked, as older servers do.
 */
function sendNodes({ fleet, profile }: ApiContext, query: URLSearchParams, res: http.ServerResponse): void {
  const paging = pagingOf(query, profile === 'current');
  if ('error' in paging) return sendText(res, 400, paging.error);
  const page = fleet.page(paging.perPage, paging.nextToken, profile);
  if (page.next) res.setHeader(NEXT_TOKEN_HEADER, page.next);
  sendJson(res, 200, page.nodes);
}

/**
 * The region's autopilot health, as a server answers it and a client forwards it to one: 429 with the
 * same body when unhealthy; a client that knows no server has nowhere to forward it (500 "no servers").
 */
function sendAutopilotHealth({ agent, profile }: ApiContext, _q: URLSearchParams, res: http.ServerResponse): void {
  const autopilot = agent.isServer || agent.knownServers().length > 0 ? agent.autopilot : undefined;
  if (!autopilot) return sendText(res, 500, NO_SERVERS);
  const { healthy, body } = autopilot.body(profile === 'current');
  sendJson(res, healthy ? 200 : 429, body);
}

function sendHost(ctx: ApiContext, query: URLSearchParams, res: http.ServerResponse): void {
  const serverId = query.get('server_id');
  const nodeId = query.get('node_id');
  if (serverId && nodeId) return sendText(res, 400, 'Can only forward to either client node or server');
  const id = serverId ?? nodeId;
  const target = id ? ctx.find(id) : ctx.agent;
  if (!target) return sendText(res, 500, `node not found: ${id ?? ''}`);
  sendJson(res, 200, hostBody(target));
}

/**
 * Profiles are not simulated, but access is: without ACLs (and enable_debug unset, as configured)
 * the real agent refuses them, with ACLs it needs agent:write.
 */
function sendPprof(ctx: ApiContext, req: http.IncomingMessage, profile: string, res: http.ServerResponse): void {
  if (route(req).method !== 'GET') return sendText(res, 405, INVALID_METHOD);
  if (!ctx.acl.enabled || !ctx.acl.allows(req, 'agent:write')) return sendText(res, 403, PERMISSION_DENIED);
  if (profile === '') return sendText(res, 404, INVALID_METHOD);
  sendText(res, 501, `profile "${profile}" is not simulated`);
}

function parseAddress(address: string): { ip: string; port: number } | undefined {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(address);
  const port = Number(m?.[2]);
  if (!m?.[1] || isIP(m[1]) === 0 || port < 1 || port > 65535) return undefined;
  return { ip: m[1], port };
}

/** hashicorp/go-multierror's rendering, which is what reaches the join response. */
function multiError(failed: string[]): string {
  const head = failed.length === 1 ? '1 error occurred:' : `${failed.length} errors occurred:`;
  return `${head}\n${failed.map((a) => `\t* Failed to join ${a}: invalid address\n`).join('')}\n`;
}
