import type http from 'node:http';
import { handleFaultAdmin, type Faults } from '../common/faults.js';
import { readJson, route, sendEmpty, sendJson } from '../common/http.js';
import type { Acl } from './acl.js';
import type { AgentModel, HealthKind, HealthPart } from './agent.js';
import type { MemberPool } from './members.js';
import { NODE_STATUSES, type NodeChange, type NodeFleet, type NodeStatus } from './nodes.js';
import { autopilotAdmin } from './autopilot-admin.js';
import { licenseAdmin } from './license.js';
import { agentStats } from './stats.js';
import { telemetryAdmin } from './telemetry.js';
import { workloadAdmin } from './workload-admin.js';
import type { Workload } from './workload.js';

export interface AdminContext {
  agent: AgentModel;
  faults: Faults;
  /** The client nodes of the agent's region: a change here is seen by every agent of the region. */
  fleet: NodeFleet;
  /** The jobs, evaluations and deployments of the agent's region, shared like the fleet. */
  workload: Workload;
  /** Shared by every agent of the simulator: a token expiry set through one agent holds on all. */
  acl: Acl;
}

export const ADMIN_PREFIX = '/_sim/';

type Body = Record<string, unknown>;
type Reply = { status: number; body: unknown };

const fail = (status: number, message: string): Reply => ({ status, body: { errors: [message] } });
const NO_POOL = fail(409, 'this agent runs no server, so it has no gossip pool');

/**
 * The control side of one agent (never behind ACLs or faults):
 *   GET  /_sim/state                    everything the agent currently models
 *   *    /_sim/faults                   see common/faults.ts
 *   POST /_sim/members                  {"count": N} resizes the gossip pool (local member stays)
 *   POST /_sim/members/{name}           {"status": "failed"|"alive"|"left"|any} sets a member's status
 *   POST /_sim/health                   {"client"?: {ok, message}|null, "server"?: ...}; ok:true or null
 *                                       drops the override, so the part follows the model again
 *   DELETE /_sim/health                 drops both overrides
 *   POST /_sim/servers/clear            the client part forgets every server (and turns unhealthy)
 *   POST /_sim/raft                     {"state": "Follower", "last_contact": "never", ...} overrides raft stats
 *   DELETE /_sim/raft                   drops the raft overrides
 *   POST /_sim/allocations              {"count": N} sets the client's allocation count
 *   POST /_sim/serf                     {"health_score": "3", ...} overrides gossip stats; DELETE drops them
 *   POST /_sim/host/disk                {"mount": "/", "used_mb": N} sets a mount's used MB; DELETE drops all
 *   POST /_sim/nodes                    {"count": N} resizes the region's client nodes
 *   POST /_sim/nodes/down               {"pool"?: name, "share"?: 0-1, "count"?: N, "status"?: "down"|"disconnected"}
 *                                       takes the first nodes of a pool (or of the region) down
 *   POST /_sim/nodes/{id or name}       {"status"?, "drain"?: bool, "eligibility"?} changes one node
 *   DELETE /_sim/nodes                  every node ready, eligible and not draining again
 *   POST /_sim/autopilot/servers/{name} {"killed"?: bool, "lag"?: N} kills (or revives) a raft server of the
 *                                       region, or makes it trail the leader by N log entries
 *   POST /_sim/autopilot/flap           {"every_ms": N|null} moves leadership every N ms (null stops)
 *   DELETE /_sim/autopilot              drops the region's autopilot faults
 *   POST /_sim/acl/read-token           {"expires_in_seconds": N, "created_seconds_ago"?: M, "expired_status"?: 403|500}
 *                                       the read token expires in N seconds (N <= 0: expired, refused everywhere with
 *                                       403, or with 500 "rpc error: ACL token expired" as servers from 1.10.1 do),
 *                                       made M seconds ago; DELETE: it never expires again
 *   POST /_sim/jobs                     {"id", "namespace"?, "type"?, "groups"?: {tg: N}, "outcome"?: "running"|"complete"|"failed",
 *                                       "periodic"?, "parameterized"?, "parent_id"?, "priority"?, "meta"?, "children"?: {pending?, running?, dead?}}
 *                                       adds (or replaces) a job of the region's workload; DELETE: the scenario's workload again
 *   POST /_sim/jobs/{ns}/{id}/fail      {"every_ms"?: N, "lost"?: bool} its first group's allocations fail (or are lost) one every
 *                                       N ms (1000), none left running; DELETE stops it
 *   POST /_sim/jobs/{ns}/{id}/queue     {"queued": N, "running"?: M} N allocations queued for want of room, M running, with a
 *                                       blocked evaluation; DELETE: room again, the blocked evaluations complete
 *   POST /_sim/jobs/{ns}/{id}/deployment {"status": "failed"|"running"|..., "healthy"?: N} a new version's deployment, the latest
 *   POST /_sim/evaluations              {"blocked"?: N, "pending"?: M, "namespace"?, "job"?} adds evaluations of a job
 *   POST /_sim/license                  {"expires_in_seconds": N, "terminates_in_seconds"?: M} an enterprise agent's
 *                                       licence expiry (N <= 0: expired); DELETE: a year again (see license.ts)
 *   POST /_sim/telemetry                {"plan_queue_depth"?: N, "plan_wait_for_index_ms"?: X} what this agent's (a leader's)
 *                                       /v1/metrics serves of its plan queue; DELETE: empty again (see telemetry.ts)
 */
export async function handleAdmin(ctx: AdminContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { method, path } = route(req);
  const target = path.slice(ADMIN_PREFIX.length);
  if (target === 'faults') return handleFaultAdmin(ctx.faults, method, req, res);
  let body: Body = {};
  if (method === 'POST') {
    const parsed = await readObject(req);
    if (!parsed) return sendJson(res, 400, { errors: ['body must be a JSON object'] });
    body = parsed;
  }
  const reply = dispatch(ctx, method, target, body);
  if (reply.status === 204) return sendEmpty(res);
  sendJson(res, reply.status, reply.body);
}

function dispatch(ctx: AdminContext, method: string, target: string, body: Body): Reply {
  const { agent } = ctx;
  const key = `${method} ${target}`;
  switch (key) {
    case 'GET state':
      return { status: 200, body: agentState(ctx) };
    case 'POST members':
      return withPool(agent, (pool) => resizePool(pool, body));
    case 'POST health':
      return setHealth(agent, body);
    case 'DELETE health':
      agent.setHealth('client', undefined);
      agent.setHealth('server', undefined);
      return { status: 200, body: agent.health() };
    case 'POST servers/clear':
      if (!agent.isClient) return fail(409, 'this agent runs no client, so it knows no servers');
      agent.setServers([]);
      return { status: 200, body: { servers: [] } };
    case 'POST raft':
      return withPool(agent, () => setRaft(agent, body));
    case 'DELETE raft':
      agent.raftOverride = {};
      return { status: 204, body: undefined };
    case 'POST allocations':
      return setAllocations(agent, body);
    case 'POST serf':
      return withPool(agent, () => setStats(agent.serfOverride, 'serf', body, () => agentStats(agent).serf));
    case 'DELETE serf':
      agent.serfOverride = {};
      return { status: 204, body: undefined };
    case 'POST host/disk':
      return setDiskUsed(agent, body);
    case 'POST nodes':
      return resizeFleet(ctx.fleet, body);
    case 'POST nodes/down':
      return takeNodesDown(ctx.fleet, body);
    case 'DELETE nodes':
      ctx.fleet.reset();
      return { status: 200, body: ctx.fleet.counts() };
    case 'POST acl/read-token':
      return expireReadToken(ctx.acl, body);
    case 'DELETE acl/read-token':
      return { status: 200, body: ctx.acl.expireReadToken(undefined) };
    case 'DELETE host/disk':
      agent.diskUsedOverride = {};
      return { status: 204, body: undefined };
  }
  if (method === 'POST' && target.startsWith('nodes/')) return changeNode(ctx.fleet, target.slice('nodes/'.length), body);
  if (target === 'evaluations' || target === 'jobs' || target.startsWith('jobs/'))
    return workloadAdmin(ctx.workload, method, target, body) ?? fail(404, `no admin route ${key}`);
  if (target === 'telemetry') return telemetryAdmin(agent.telemetry, method, body) ?? fail(404, `no admin route ${key}`);
  if (target === 'license') return licenseAdmin(agent.license, method, target, body) ?? fail(404, `no admin route ${key}`);
  if (target.startsWith('autopilot')) return autopilotAdmin(agent.autopilot, method, target, body) ?? fail(404, `no admin route ${key}`);
  if (method === 'POST' && target.startsWith('members/')) {
    return withPool(agent, (pool) => setMemberStatus(pool, target.slice('members/'.length), body));
  }
  return fail(404, `no admin route ${key}`);
}

function withPool(agent: AgentModel, change: (pool: MemberPool) => Reply): Reply {
  return agent.pool ? change(agent.pool) : NO_POOL;
}

function resizePool(pool: MemberPool, body: Body): Reply {
  const count = body.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) return fail(400, 'count must be an integer >= 1');
  pool.resize(count);
  return { status: 200, body: pool.counts() };
}

function setMemberStatus(pool: MemberPool, name: string, body: Body): Reply {
  if (typeof body.status !== 'string' || body.status === '') return fail(400, 'status must be a non-empty string');
  const member = pool.setStatus(name, body.status);
  return member ? { status: 200, body: member } : fail(404, `no member named ${name}`);
}

const isStatus = (v: unknown): v is NodeStatus => (NODE_STATUSES as readonly unknown[]).includes(v);

function resizeFleet(fleet: NodeFleet, body: Body): Reply {
  const count = body.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) return fail(400, 'count must be an integer >= 0');
  fleet.resize(count);
  return { status: 200, body: fleet.counts() };
}

function takeNodesDown(fleet: NodeFleet, body: Body): Reply {
  const { pool, share, count, status = 'down' } = body;
  if (pool !== undefined && typeof pool !== 'string') return fail(400, 'pool must be a string');
  if (share !== undefined && (typeof share !== 'number' || share < 0 || share > 1)) return fail(400, 'share must be a number from 0 to 1');
  if (count !== undefined && (typeof count !== 'number' || !Number.isInteger(count) || count < 0)) return fail(400, 'count must be an integer >= 0');
  if (share === undefined && count === undefined) return fail(400, 'give share or count');
  if (status !== 'down' && status !== 'disconnected') return fail(400, 'status must be "down" or "disconnected"');
  const changed = fleet.takeDown(pool, { share: share as number | undefined, count: count as number | undefined }, status);
  return { status: 200, body: { changed, ...fleet.counts() } };
}

function changeNode(fleet: NodeFleet, id: string, body: Body): Reply {
  const { status, drain, eligibility } = body;
  if (status !== undefined && !isStatus(status)) return fail(400, `status must be one of ${NODE_STATUSES.join(', ')}`);
  if (drain !== undefined && typeof drain !== 'boolean') return fail(400, 'drain must be a boolean');
  if (eligibility !== undefined && eligibility !== 'eligible' && eligibility !== 'ineligible')
    return fail(400, 'eligibility must be "eligible" or "ineligible"');
  const node = fleet.find(id);
  if (!node) return fail(404, `no node ${id}`);
  const change: NodeChange = { status, drain, eligibility };
  fleet.change((n) => n === node, change);
  return { status: 200, body: node };
}

function setHealth(agent: AgentModel, body: Body): Reply {
  for (const kind of ['client', 'server'] as const satisfies readonly HealthKind[]) {
    if (!(kind in body)) continue;
    const part = healthPart(body[kind]);
    if (part === 'invalid') return fail(400, `${kind} must be null or {"ok": boolean, "message"?: string}`);
    agent.setHealth(kind, part);
  }
  return { status: 200, body: agent.health() };
}

function healthPart(value: unknown): HealthPart | undefined | 'invalid' {
  if (value === null) return undefined;
  if (typeof value !== 'object' || typeof (value as Body).ok !== 'boolean') return 'invalid';
  const { ok, message } = value as Body;
  if (ok === true) return undefined;
  return { ok: false, message: typeof message === 'string' && message !== '' ? message : 'unhealthy (simulated)' };
}

function setRaft(agent: AgentModel, body: Body): Reply {
  return setStats(agent.raftOverride, 'raft', body, () => agentStats(agent).raft);
}

function setStats(override: Record<string, string>, section: string, body: Body, view: () => unknown): Reply {
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== 'string' && typeof v !== 'number') return fail(400, `${section}.${k} must be a string (stats are strings)`);
    override[k] = String(v);
  }
  return { status: 200, body: view() };
}

function setDiskUsed(agent: AgentModel, body: Body): Reply {
  const { mount, used_mb: used } = body;
  if (mount !== '/' && mount !== '/var/lib/nomad') return fail(400, 'mount must be "/" or "/var/lib/nomad"');
  if (typeof used !== 'number' || !Number.isInteger(used) || used < 0) return fail(400, 'used_mb must be an integer >= 0');
  agent.diskUsedOverride[mount] = used;
  return { status: 200, body: { mount, used_mb: used } };
}

function expireReadToken(acl: Acl, body: Body): Reply {
  const seconds = body.expires_in_seconds;
  if (!acl.enabled) return fail(409, 'ACLs are off in this scenario, so no token expires');
  const ago = body.created_seconds_ago;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return fail(400, 'expires_in_seconds must be a number');
  if (ago !== undefined && (typeof ago !== 'number' || !Number.isFinite(ago) || ago < 0)) return fail(400, 'created_seconds_ago must be a number >= 0');
  const status = body.expired_status ?? 403;
  if (status !== 403 && status !== 500) return fail(400, 'expired_status must be 403 or 500');
  return { status: 200, body: acl.expireReadToken(seconds, ago, status) };
}

function setAllocations(agent: AgentModel, body: Body): Reply {
  const count = body.count;
  if (!agent.isClient) return fail(409, 'this agent runs no client, so it has no allocations');
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) return fail(400, 'count must be an integer >= 0');
  agent.allocations = count;
  return { status: 200, body: { allocations: count } };
}

function agentState(ctx: AdminContext): unknown {
  const { agent, faults } = ctx;
  return {
    name: agent.name,
    role: agent.role,
    url: agent.url,
    region: agent.region,
    datacenter: agent.datacenter,
    version: agent.version,
    nodeId: agent.nodeId,
    health: agent.health(),
    healthOverrides: agent.healthOverrides(),
    servers: agent.knownServers(),
    allocations: agent.allocations,
    raftOverride: agent.raftOverride,
    stats: agentStats(agent),
    members: agent.pool?.list() ?? [],
    nodes: ctx.fleet.counts(),
    workload: ctx.workload.summary(),
    autopilot: agent.autopilot?.body(true).body,
    faults,
  };
}

async function readObject(req: http.IncomingMessage): Promise<Body | undefined> {
  try {
    const value = await readJson(req);
    if (value === undefined) return {};
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : undefined;
  } catch {
    return undefined;
  }
}
