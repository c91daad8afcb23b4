import { linkUp, secondaryState, type ClusterModel, type KindState, type Link, type Role } from './cluster.js';

/** The model as plain JSON for `GET /_sim/state`; secrets are counted, not shown. */
export function modelDump(cluster: ClusterModel): Record<string, unknown> {
  return {
    name: cluster.name,
    url: cluster.url,
    cluster_addr: cluster.clusterAddr,
    sealed: cluster.sealed,
    quirks: cluster.quirks,
    faults: cluster.faults,
    client_tokens: cluster.tokens.size,
    dr_operation_tokens: cluster.operationTokens.size,
    operation_token_attempt: cluster.attempt ? { nonce: cluster.attempt.nonce, progress: cluster.attempt.provided.size } : null,
    replication: { performance: kindDump(cluster.replication.performance), dr: kindDump(cluster.replication.dr) },
  };
}

function kindDump(state: KindState): Record<string, unknown> {
  return {
    ...roleDump(state.role),
    corrupt_root: state.corruptRoot,
    corrupt_trees: [...state.corruptTrees.keys()],
    last_corruption_check: state.lastCorruptionCheck?.toISOString() ?? null,
  };
}

function roleDump(role: Role): Record<string, unknown> {
  if (role.mode === 'primary') {
    return {
      mode: role.mode,
      cluster_id: role.clusterId,
      last_wal: role.lastWal,
      known_secondaries: [...role.known],
      links: [...role.links.values()].map(linkDump),
      paths_filters: Object.fromEntries(role.pathsFilters),
    };
  }
  if (role.mode === 'secondary') {
    return {
      mode: role.mode,
      cluster_id: role.clusterId,
      secondary_id: role.secondaryId,
      state: secondaryState(role),
      last_remote_wal: role.lastRemoteWal,
      demoted: role.demoted,
      link: role.link ? linkDump(role.link) : null,
    };
  }
  return { mode: role.mode };
}

function linkDump(link: Link): Record<string, unknown> {
  return {
    primary: link.primary.name,
    secondary: link.secondary.name,
    secondary_id: link.secondaryId,
    up: linkUp(link),
    admin_connected: link.adminConnected,
    listed: link.listed,
    ended: link.ended,
    heartbeat_stopped: link.heartbeatStopped,
    last_heartbeat: link.lastHeartbeat.toISOString(),
    following: link.following,
  };
}
