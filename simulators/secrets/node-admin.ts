import { randomUUID } from 'node:crypto';
import { badRequest, notFound, ok, type Reply } from './api-error.js';
import type { ClusterModel } from './cluster.js';
import { AUDIT_MODES, moveLeadership, roleOf, type AuditMode, type SimNode } from './nodes.js';
import { setSnapshot, setSupport, snapshotsView } from './snapshots.js';
import { optionalBool, optionalString, optionalStringArray, type Body } from './request-body.js';
import { TELEMETRY_ADMIN_ROUTES } from './telemetry-admin.js';
import { restartTelemetry } from './telemetry.js';

/**
 * The node faults under `/_sim/`: seal a standby, kill a voter, lag one, remove one, skew its
 * version or clock, leave an unseal stuck part way, fail its seal backends, block its audit devices
 * (`POST /_sim/nodes/<id>`), flap the leader (`POST /_sim/leader`), bring the licence near its end
 * (`POST /_sim/license`), make automated snapshots fail or stall, or not apply
 * (`POST /_sim/snapshots[/<name>]`, see snapshots.ts), set what the nodes' telemetry serves
 * (`/_sim/telemetry`, see telemetry-admin.ts).
 */
type NodeAdminHandler = (cluster: ClusterModel, body: Body, args: string[]) => Reply;

export const NODE_ADMIN_ROUTES: Array<{ method: string; pattern: string; handler: NodeAdminHandler }> = [
  { method: 'GET', pattern: 'nodes', handler: (c) => ok(nodesView(c)) },
  { method: 'POST', pattern: 'nodes/*', handler: (c, body, a) => setNode(c, a[0] ?? '', body) },
  { method: 'POST', pattern: 'leader', handler: (c, body) => flapLeader(c, body) },
  { method: 'POST', pattern: 'license', handler: (c, body) => setLicense(c, body) },
  { method: 'GET', pattern: 'snapshots', handler: (c) => ok(snapshotsView(c.snapshots)) },
  { method: 'POST', pattern: 'snapshots', handler: (c, body) => setSupport(c.snapshots, body) },
  { method: 'POST', pattern: 'snapshots/*', handler: (c, body, a) => setSnapshot(c.snapshots, a[0] ?? '', body) },
  ...TELEMETRY_ADMIN_ROUTES,
];

function nodesView(cluster: ClusterModel): Record<string, unknown> {
  const set = cluster.nodes;
  return {
    active: set.activeId,
    license_expiry: set.licenseExpiry?.toISOString() ?? null,
    seal_backends: cluster.sealBackends,
    nodes: set.nodes.map((n) => ({
      id: n.id,
      role: roleOf(set, n),
      sealed: n.sealed,
      dead: n.dead,
      removed: n.removed,
      lag_entries: n.lagEntries,
      version: n.version,
      clock_skew_ms: n.clockSkewMs,
      unseal_progress: n.unsealProgress,
      audit: n.audit,
      unhealthy_seal_backends: Object.fromEntries([...n.sealBackendsDown].map(([name, since]) => [name, since.toISOString()])),
    })),
  };
}

const optionalInt = (body: Body, key: string): number | undefined => {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(`"${key}" must be an integer`);
  return v;
};

function setNode(cluster: ClusterModel, id: string, body: Body): Reply {
  const n: SimNode | undefined = cluster.nodes.nodes.find((x) => x.id === id);
  if (!n) throw notFound(`no node "${id}" (have: ${cluster.nodes.nodes.map((x) => x.id).join(', ')})`);
  const progress = unsealProgressArg(cluster, body);
  const unhealthyBackends = sealBackendsArg(cluster, body);
  n.sealed = optionalBool(body, 'sealed') ?? n.sealed;
  if (!n.sealed) setUnsealProgress(n, 0);
  if (progress !== undefined) setUnsealProgress(n, progress);
  if (unhealthyBackends) setUnhealthyBackends(n, unhealthyBackends);
  const wasDead = n.dead;
  n.dead = optionalBool(body, 'dead') ?? n.dead;
  // A killed node brought back is a new process: its telemetry's counters start from zero.
  if (wasDead && !n.dead) restartTelemetry(n.telemetry);
  n.removed = optionalBool(body, 'removed') ?? n.removed;
  const lag = optionalInt(body, 'lag_entries');
  if (lag !== undefined && lag < 0) throw badRequest('"lag_entries" must not be negative');
  n.lagEntries = lag ?? n.lagEntries;
  n.version = optionalString(body, 'version') ?? n.version;
  n.clockSkewMs = optionalInt(body, 'clock_skew_ms') ?? n.clockSkewMs;
  n.audit = auditArg(body) ?? n.audit;
  // An active node that stops serving hands over, as the real cluster elects another.
  if (n.id === cluster.nodes.activeId && (n.sealed || n.dead || n.removed)) moveLeadership(cluster.nodes);
  return ok(nodesView(cluster));
}

/** `audit`: `hang` or `error` blocks every audit device of the node (what it audits hangs, or fails 500); `ok` unblocks them. */
function auditArg(body: Body): AuditMode | undefined {
  const v = optionalString(body, 'audit');
  if (v !== undefined && !(AUDIT_MODES as readonly string[]).includes(v)) throw badRequest(`"audit" must be one of ${AUDIT_MODES.join(', ')}`);
  return v as AuditMode | undefined;
}

/**
 * `unseal_progress`: k of the threshold's key shares entered and no more coming, the node sealed and
 * stuck there (1 to t-1); 0: the remaining shares arrive and the node unseals.
 */
function unsealProgressArg(cluster: ClusterModel, body: Body): number | undefined {
  const k = optionalInt(body, 'unseal_progress');
  const t = cluster.keys.threshold;
  if (k !== undefined && (k < 0 || k >= t)) throw badRequest(`"unseal_progress" must be from 0 to ${t - 1}: at the threshold of ${t} shares the node unseals`);
  return k;
}

function setUnsealProgress(n: SimNode, k: number): void {
  // One nonce per attempt: it changes when an attempt starts, not with each share.
  if (k > 0 && n.unsealProgress === 0) n.unsealNonce = randomUUID();
  if (k === 0) n.unsealNonce = '';
  n.unsealProgress = k;
  n.sealed = k > 0;
}

/** `unhealthy_seal_backends`: the names of the Seal HA backends this node cannot reach; []: all reachable again. */
function sealBackendsArg(cluster: ClusterModel, body: Body): string[] | undefined {
  const names = optionalStringArray(body, 'unhealthy_seal_backends');
  const unknown = names?.find((name) => !cluster.sealBackends.includes(name));
  if (unknown !== undefined && cluster.sealBackends.length === 0)
    throw badRequest('this cluster has a Shamir seal and no seal backends (give it "sealBackends" in its scenario)');
  if (unknown !== undefined) throw badRequest(`no seal backend "${unknown}" (have: ${cluster.sealBackends.join(', ')})`);
  return names;
}

/** A backend that fails now was last seen healthy now; one that was already failing keeps its time. */
function setUnhealthyBackends(n: SimNode, names: string[]): void {
  for (const name of [...n.sealBackendsDown.keys()]) if (!names.includes(name)) n.sealBackendsDown.delete(name);
  const now = new Date();
  for (const name of names) if (!n.sealBackendsDown.has(name)) n.sealBackendsDown.set(name, now);
}

function flapLeader(cluster: ClusterModel, body: Body): Reply {
  const to = optionalString(body, 'node');
  if (!moveLeadership(cluster.nodes, to)) throw badRequest(to ? `node "${to}" cannot lead (sealed, dead, removed or unknown)` : 'no node can lead');
  return ok(nodesView(cluster));
}

function setLicense(cluster: ClusterModel, body: Body): Reply {
  if (optionalBool(body, 'none') === true) cluster.nodes.licenseExpiry = null;
  else {
    const inSeconds = optionalInt(body, 'expires_in_seconds');
    if (inSeconds === undefined) throw badRequest('say when the licence expires: "expires_in_seconds" (negative: expired), or "none": true');
    cluster.nodes.licenseExpiry = new Date(Date.now() + inSeconds * 1000);
  }
  return ok(nodesView(cluster));
}
