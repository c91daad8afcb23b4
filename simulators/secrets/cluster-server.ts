import type http from 'node:http';
import { applyFaults } from '../common/faults.js';
import { route, sendJson, type Handler } from '../common/http.js';
import { handleAdmin } from './admin-api.js';
import { blockedByAudit } from './audit.js';
import { ApiError, badRequest, notFound, ok, permissionDenied, respond, SEALED, type Reply } from './api-error.js';
import type { ClientToken, ClusterModel } from './cluster.js';
import type { Fleet } from './fleet.js';
import { accessFor, matchEndpoint, type EndpointMatch } from './replication-api.js';
import type { Access, Method } from './replication-endpoint.js';
import { METRICS_PATH, sendMetrics } from './metrics-api.js';
import { readBody, type Body } from './request-body.js';
import { autopilotReply, haStatusReply, healthReply, leaderReply } from './node-api.js';
import { activeNode, member, type SimNode } from './nodes.js';
import { sealRoute } from './seal-api.js';
import { snapshotRoute } from './snapshots.js';
import { countAnswer, failsNow } from './telemetry.js';
import { TOKEN_LOOKUP_SELF, tokenLookupSelf } from './token-lookup.js';

/**
 * The HTTP listener of one simulated cluster (its load balancer, `node` undefined) or of one of its
 * nodes: admin routes, then faults, the node's health and seal status, its telemetry, the seal, routing, namespace, auth.
 * Every request the node answers counts in its telemetry (telemetry.ts).
 */
export function clusterHandler(fleet: Fleet, cluster: ClusterModel, own?: SimNode): Handler {
  return async (req, res) => {
    const { method, path, query } = route(req);
    if (path.startsWith('/_sim/')) return handleAdmin(fleet, cluster, method, path, req, res);
    const node = own ?? balanced(cluster);
    // A killed node, or a cluster whose every node is gone: nothing listens there any more.
    if (!node || node.dead) return void req.socket.destroy();
    countAnswer(node.telemetry, res);
    if (await applyFaults(cluster.faults, res)) return;
    const now = new Date();
    if (path === '/v1/sys/health') return respond(res, () => healthReply(cluster, node, query, now));
    const seal = sealRoute(path);
    if (seal) return respond(res, () => seal(cluster, node, method));
    if (path === METRICS_PATH) return sendMetrics(cluster, node, method, query, req, res, () => mayRead(cluster, req));
    if (cluster.sealed || node.sealed) return sendJson(res, 503, { errors: [SEALED] });
    if (blockedByAudit(cluster, node, path, req, res)) return;
    // The 5xx fault: an internal error in the handler, after the request was audited.
    if (failsNow(node.telemetry)) return sendJson(res, 500, { errors: ['internal error'] });
    await respond(
      res,
      () => nodesAnswer(cluster, path, req, now) ?? snapshotsAnswer(cluster, method, path, query, req, now) ?? answer(fleet, cluster, method, path, query, req),
    );
  };
}

/** The node the cluster's own address reaches: the active one, else, as a load balancer would, a live member. */
const balanced = (cluster: ClusterModel): SimNode | undefined =>
  activeNode(cluster.nodes, cluster.sealed) ?? cluster.nodes.nodes.find((n) => member(n) && !n.dead);

/** The cluster's HA and raft endpoints; undefined for the other paths. */
function nodesAnswer(cluster: ClusterModel, path: string, req: http.IncomingMessage, now: Date): Reply | undefined {
  if (path === '/v1/sys/leader') return leaderReply(cluster, now);
  const reply = path === '/v1/sys/ha-status' ? haStatusReply : path === '/v1/sys/storage/raft/autopilot/state' ? autopilotReply : undefined;
  if (!reply) return undefined;
  authorizeClient(cluster, req, 'client');
  // A DR secondary serves its status endpoints only.
  if (cluster.replication.dr.role.mode === 'secondary') throw badRequest('path disabled in replication DR secondary mode');
  return reply(cluster, now);
}

/** The automated snapshots' paths (root namespace only); undefined for the other paths. */
function snapshotsAnswer(cluster: ClusterModel, method: string, path: string, query: URLSearchParams, req: http.IncomingMessage, now: Date): Reply | undefined {
  const r = snapshotRoute(method, path, query);
  if (!r) return undefined;
  const namespace = namespaceHeader(req);
  if (!isRootNamespace(namespace)) throw badRequest(`this endpoint is restricted to the root namespace (namespace: "${namespace.join('/')}/")`);
  authorizeClient(cluster, req, r.access);
  if (cluster.replication.dr.role.mode === 'secondary') throw badRequest('path disabled in replication DR secondary mode');
  return r.reply(cluster.snapshots, now);
}

async function answer(fleet: Fleet, cluster: ClusterModel, rawMethod: string, path: string, query: URLSearchParams, req: http.IncomingMessage): Promise<Reply> {
  const segments = path.split('/').slice(1);
  if (segments[0] !== 'v1') throw notFound();
  if (segments.slice(1).join('/') === TOKEN_LOOKUP_SELF) {
    const token = clientToken(req);
    return tokenLookupSelf(token, token === undefined ? undefined : lookupToken(cluster, token), rawMethod, cluster.startedAt);
  }
  // A path may carry part of the namespace before `sys/`, as in `/v1/ns1/sys/replication/dr/status`.
  const sys = segments.findIndex((s, i) => s === 'sys' && segments[i + 1] === 'replication');
  if (sys < 0) throw notFound();
  const match = matchEndpoint(segments.slice(sys + 2));
  if (!match) throw notFound();
  if (Object.values(match.params).some((p) => p.endsWith('.'))) throw notFound();

  const access = accessFor(match);
  const namespace = [...namespaceHeader(req), ...segments.slice(1, sys)];
  if (access !== 'public' && !isRootNamespace(namespace)) {
    throw badRequest(`this endpoint is restricted to the root namespace (namespace: "${namespace.join('/')}/")`);
  }
  if (rawMethod === 'GET' && isHelpRequest(query)) {
    if (access !== 'public') authorizeClient(cluster, req, 'client');
    return help(match, segments.slice(sys).join('/'));
  }
  // PUT and POST are synonyms in this API.
  const method = (rawMethod === 'PUT' ? 'POST' : rawMethod) as Method;
  const handler = match.endpoint.methods[method];
  if (!handler) {
    throw new ApiError(405, ['unsupported operation'], { allow: Object.keys(match.endpoint.methods).join(', ') });
  }
  if (access === 'client' || access === 'sudo') authorizeClient(cluster, req, access);
  const body: Body = method === 'POST' ? await readBody(req) : {};
  if (access === 'operation-token') authorizeOperationToken(cluster, body);
  return handler({ fleet, cluster, kind: match.kind, params: match.params, body, now: new Date() });
}

function namespaceHeader(req: http.IncomingMessage): string[] {
  const header = req.headers['x-secrets-namespace'];
  const value = Array.isArray(header) ? header.join('/') : (header ?? '');
  return value.split('/').filter((s) => s !== '');
}

function isRootNamespace(namespace: string[]): boolean {
  return namespace.length === 0 || (namespace.length === 1 && namespace[0] === 'root');
}

function isHelpRequest(query: URLSearchParams): boolean {
  const help = query.get('help');
  return help === '1' || help === 'true';
}

function clientToken(req: http.IncomingMessage): string | undefined {
  const direct = req.headers['x-secrets-token'];
  if (typeof direct === 'string' && direct !== '') return direct;
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return bearer?.[1];
}

/** A performance secondary holds the primary's token store, so the primary's tokens work there too. */
function lookupToken(cluster: ClusterModel, token: string): ClientToken | undefined {
  const role = cluster.replication.performance.role;
  const entry = cluster.tokens.get(token) ?? (role.mode === 'secondary' && role.link ? role.link.primary.tokens.get(token) : undefined);
  // The service revokes a token when it expires: from then on it is unknown.
  return entry?.expiresAt && entry.expiresAt.getTime() <= Date.now() ? undefined : entry;
}

/** Whether the request carries a token the cluster knows (every token may read what `client` access guards). */
function mayRead(cluster: ClusterModel, req: http.IncomingMessage): boolean {
  const token = clientToken(req);
  return token !== undefined && lookupToken(cluster, token) !== undefined;
}

function authorizeClient(cluster: ClusterModel, req: http.IncomingMessage, access: Extract<Access, 'client' | 'sudo'>): void {
  const token = clientToken(req);
  const entry = token === undefined ? undefined : lookupToken(cluster, token);
  if (!entry || (access === 'sudo' && !entry.sudo)) throw permissionDenied();
}

function authorizeOperationToken(cluster: ClusterModel, body: Body): void {
  const token = body.dr_operation_token;
  if (typeof token !== 'string' || token === '') throw badRequest('missing required parameter "dr_operation_token"');
  if (!cluster.operationTokens.has(token)) throw permissionDenied();
}

function help(match: EndpointMatch, path: string): Reply {
  const operations = Object.fromEntries(
    Object.keys(match.endpoint.methods).map((m) => [m.toLowerCase(), { summary: match.endpoint.help, responses: { '200': { description: 'OK' } } }]),
  );
  return ok({
    help: `## ${path}\n\n${match.endpoint.help}\n`,
    openapi: {
      openapi: '3.0.2',
      info: { title: 'secrets service (simulator)', version: '1' },
      paths: { '/': { description: match.endpoint.help, ...operations } },
    },
  });
}
