import { randomUUID } from 'node:crypto';
import { isCorrupted, linkUp, merkleRoot, secondaryState, type ClusterModel, type Kind, type Link, type PrimaryRole, type SecondaryRole } from './cluster.js';
import { corruptionCheckEpoch } from './merkle.js';

type Json = Record<string, unknown>;

/** The wrapper every real `sys/` answer comes in. */
export function envelope(cluster: ClusterModel, fields: { data?: unknown; warnings?: string[]; wrap_info?: Json } = {}): Json {
  return {
    request_id: randomUUID(),
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data: fields.data ?? null,
    wrap_info: fields.wrap_info ?? null,
    warnings: fields.warnings ?? null,
    auth: null,
    ...(cluster.quirks.extraFields ? { mount_type: 'system' } : {}),
  };
}

const connectionStatus = (link: Link): string => (linkUp(link) ? 'connected' : 'disconnected');

function walNumber(cluster: ClusterModel, wal: number): number | string {
  return cluster.quirks.numbersAsStrings ? String(wal) : wal;
}

/** Real servers send these as strings; clients must not assume numbers. */
const linkExtras = (cluster: ClusterModel): Json =>
  cluster.quirks.extraFields ? { clock_skew_ms: '0', last_heartbeat_duration_ms: '0', replication_primary_canary_age_ms: '0' } : {};

function primaryData(cluster: ClusterModel, kind: Kind, role: PrimaryRole): Json {
  const state = cluster.replication[kind];
  const listed = [...role.links.values()].filter((l) => l.listed);
  return {
    cluster_id: role.clusterId,
    known_secondaries: [...role.known],
    last_wal: walNumber(cluster, role.lastWal),
    merkle_root: merkleRoot(role.clusterId, role.lastWal),
    corrupted_merkle_tree: isCorrupted(state),
    last_corruption_check_epoch: corruptionCheckEpoch(state),
    mode: 'primary',
    primary_cluster_addr: role.primaryClusterAddr,
    ...(cluster.quirks.omitPeerLists
      ? {}
      : {
          secondaries: listed.map((link) => ({
            api_address: link.secondary.url,
            cluster_address: link.secondary.clusterAddr,
            connection_status: connectionStatus(link),
            last_heartbeat: link.lastHeartbeat.toISOString(),
            node_id: link.secondaryId,
            ...linkExtras(cluster),
          })),
        }),
    ...(cluster.quirks.omitState ? {} : { state: 'running' }),
    ...(cluster.quirks.extraFields
      ? {
          [kind === 'dr' ? 'last_dr_wal' : 'last_performance_wal']: walNumber(cluster, role.lastWal),
          last_reindex_epoch: reindexEpoch(cluster, kind),
          ssct_generation_counter: 0,
        }
      : {}),
  };
}

function secondaryData(cluster: ClusterModel, kind: Kind, role: SecondaryRole): Json {
  const state = cluster.replication[kind];
  const link = role.link;
  const primaryAddr = link ? link.primary.clusterAddr : '';
  const streaming = link !== undefined && linkUp(link);
  return {
    cluster_id: role.clusterId,
    known_primary_cluster_addrs: link ? [primaryAddr] : [],
    last_remote_wal: walNumber(cluster, role.lastRemoteWal),
    merkle_root: merkleRoot(role.dataOrigin, role.lastRemoteWal),
    mode: 'secondary',
    primaries: cluster.quirks.omitPeerLists
      ? undefined
      : link
        ? [
            {
              api_address: link.primaryApiAddr,
              cluster_address: primaryAddr,
              connection_status: connectionStatus(link),
              last_heartbeat: link.lastHeartbeat.toISOString(),
              ...linkExtras(cluster),
            },
          ]
        : [],
    primary_cluster_addr: primaryAddr,
    secondary_id: role.secondaryId,
    state: secondaryState(role),
    ...(cluster.quirks.extraFields
      ? {
          connection_state: link === undefined ? 'idle' : streaming ? 'ready' : 'transient_failure',
          corrupted_merkle_tree: isCorrupted(state),
          last_corruption_check_epoch: corruptionCheckEpoch(state),
          last_reindex_epoch: reindexEpoch(cluster, kind),
          last_start: cluster.startedAt.toISOString(),
          ssct_generation_counter: 0,
        }
      : {}),
  };
}

function reindexEpoch(cluster: ClusterModel, kind: Kind): string {
  const at = cluster.replication[kind].lastReindex;
  return at ? String(Math.floor(at.getTime() / 1000)) : '0';
}

export function replicationStatus(cluster: ClusterModel, kind: Kind): Json {
  const role = cluster.replication[kind].role;
  if (role.mode === 'primary') return primaryData(cluster, kind, role);
  if (role.mode === 'secondary') return secondaryData(cluster, kind, role);
  return { mode: 'disabled' };
}
