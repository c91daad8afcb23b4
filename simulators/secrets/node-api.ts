import type { ClusterModel } from './cluster.js';
import { ApiError, notFound, ok, type Reply } from './api-error.js';
import { activeNode, failureTolerance, healthyVoter, member, serving, MAX_TRAILING_LOGS, type SimNode } from './nodes.js';
import { envelope } from './status-body.js';

type Json = Record<string, unknown>;

/** The raft index the leader is at: it grows as the cluster lives. */
const leaderIndex = (cluster: ClusterModel, now: Date): number => 100 + Math.floor((now.getTime() - cluster.startedAt.getTime()) / 1000);
/** Its raft (cluster) address: the host of its API address, the port after its API port (8200, 8201). */
const nodeClusterAddress = (n: SimNode): string => {
  const u = new URL(n.url);
  return `${u.hostname}:${Number(u.port) + 1}`;
};

/** The status code `sys/health` answers a node's state with, the documented defaults overridable by the query as the API allows. */
function healthStatus(cluster: ClusterModel, n: SimNode, query: URLSearchParams): number {
  const code = (param: string, def: number): number => {
    const v = Number(query.get(param));
    return query.has(param) && Number.isInteger(v) && v >= 200 && v < 600 ? v : def;
  };
  const active = code('activecode', 200);
  if (n.removed) return code('removedcode', 530);
  if (n.sealed || cluster.sealed) return code('sealedcode', 503);
  if (cluster.replication.dr.role.mode === 'secondary') return code('drsecondarycode', 472);
  const leader = activeNode(cluster.nodes, cluster.sealed);
  if (leader === n) return active;
  // No active node to reach (the quorum lost): every standby says so.
  if (!leader) return code('haunhealthycode', 474);
  if (n.standbyKind === 'performance_standby') return query.get('perfstandbyok') === 'true' ? active : code('performancestandbycode', 473);
  return query.get('standbyok') === 'true' ? active : code('standbycode', 429);
}

/** The cluster's name and id as an unsealed node reports them. */
export const clusterIdentity = (cluster: ClusterModel): Json => ({ cluster_name: `vault-cluster-${cluster.name}`, cluster_id: cluster.id });

function license(cluster: ClusterModel): Json {
  if (cluster.quirks.omitPeerLists) return {};
  const expiry = cluster.nodes.licenseExpiry;
  return {
    license: expiry ? { state: 'autoloaded', expiry_time: expiry.toISOString(), terminated: false } : { state: 'none', expiry_time: '', terminated: false },
  };
}

/** One node's `sys/health`: the same body with every status code (a sealed node knows no cluster name). */
export function healthReply(cluster: ClusterModel, n: SimNode, query: URLSearchParams, now: Date): Reply {
  const sealed = n.sealed || cluster.sealed;
  const role = activeNode(cluster.nodes, cluster.sealed) === n ? 'active' : n.standbyKind;
  const mode = (k: 'performance' | 'dr') => (sealed ? 'unknown' : cluster.replication[k].role.mode);
  const body: Json = {
    initialized: true,
    sealed,
    standby: sealed || role !== 'active',
    performance_standby: !sealed && role === 'performance_standby',
    replication_performance_mode: mode('performance'),
    replication_dr_mode: mode('dr'),
    server_time_utc: Math.floor(now.getTime() / 1000) + Math.round(n.clockSkewMs / 1000),
    version: n.version,
    ...(sealed ? {} : clusterIdentity(cluster)),
    ...(cluster.quirks.extraFields ? { enterprise: true, echo_duration_ms: role === 'active' ? 0 : 2, clock_skew_ms: n.clockSkewMs } : {}),
    ...(n.removed ? { removed_from_cluster: true } : {}),
    ...license(cluster),
  };
  return { status: healthStatus(cluster, n, query), body };
}

/** What a standby answers a request it must forward while no node is active (the quorum lost). */
function noActiveNode(): ApiError {
  return new ApiError(500, ['local node not active but active cluster node not found']);
}

/** `sys/ha-status`: the active node and every node that echoes to it (a sealed, dead or removed node does not). */
export function haStatusReply(cluster: ClusterModel, now: Date): Reply {
  if (cluster.quirks.omitPeerLists) throw notFound();
  const active = activeNode(cluster.nodes, cluster.sealed);
  if (!active) throw noActiveNode();
  const nodes = cluster.nodes.nodes.filter(serving).map((n) => ({
    hostname: n.id,
    api_address: n.url,
    cluster_address: `https://${nodeClusterAddress(n)}`,
    active_node: n === active,
    last_echo: n === active ? null : new Date(now.getTime() - 1500).toISOString(),
    version: n.version,
    upgrade_version: n.version,
    redundancy_zone: 'a',
    ...(cluster.quirks.extraFields ? { clock_skew_ms: n.clockSkewMs, echo_duration_ms: n === active ? 0 : 2, replication_primary_canary_age_ms: 0 } : {}),
  }));
  // As the API documents it; the 1.10-1.15 servers of the `1.5` profile in the `data` envelope.
  return ok(cluster.quirks.extraFields ? { Nodes: nodes } : envelope(cluster, { data: { nodes } }));
}

/** `sys/leader`, unauthenticated. */
export function leaderReply(cluster: ClusterModel, now: Date): Reply {
  const active = activeNode(cluster.nodes, cluster.sealed);
  return ok({
    ha_enabled: true,
    is_self: active !== undefined,
    active_time: cluster.nodes.activeSince.toISOString(),
    leader_address: active ? `${active.url}/` : '',
    leader_cluster_address: active ? `https://${nodeClusterAddress(active)}/` : '',
    performance_standby: false,
    performance_standby_last_remote_wal: 0,
    raft_committed_index: leaderIndex(cluster, now),
    raft_applied_index: leaderIndex(cluster, now),
  });
}

function serverView(cluster: ClusterModel, n: SimNode, now: Date): Json {
  const leader = activeNode(cluster.nodes, cluster.sealed) === n;
  const down = !serving(n);
  return {
    id: n.id,
    name: n.id,
    address: nodeClusterAddress(n),
    node_status: n.dead ? 'failed' : 'alive',
    last_contact: leader ? '0s' : down ? '47.311s' : n.lagEntries > 0 ? '2.5s' : '412.7ms',
    last_term: 3,
    last_index: down ? leaderIndex(cluster, now) - MAX_TRAILING_LOGS * 2 : leaderIndex(cluster, now) - n.lagEntries,
    healthy: leader || healthyVoter(n),
    stable_since: cluster.startedAt.toISOString(),
    status: leader ? 'leader' : 'voter',
    version: n.version,
    node_type: 'voter',
    redundancy_zone: '',
    upgrade_version: n.version,
  };
}

/** `sys/storage/raft/autopilot/state`, as the servers answer it: in the `data` envelope. */
export function autopilotReply(cluster: ClusterModel, now: Date): Reply {
  if (cluster.quirks.omitPeerLists) throw notFound();
  const active = activeNode(cluster.nodes, cluster.sealed);
  if (!active) throw noActiveNode();
  const members = cluster.nodes.nodes.filter(member);
  const tolerance = failureTolerance(cluster.nodes);
  const data = {
    healthy: members.every(healthyVoter),
    failure_tolerance: tolerance,
    optimistic_failure_tolerance: tolerance,
    leader: active.id,
    voters: members.map((n) => n.id),
    servers: Object.fromEntries(members.map((n) => [n.id, serverView(cluster, n, now)])),
    upgrade_info: null,
  };
  return ok(envelope(cluster, { data }));
}
