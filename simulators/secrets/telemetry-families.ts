import type { Family, Labels } from '../common/telemetry.js';
import type { ClusterModel } from './cluster.js';
import { clusterIdentity } from './node-api.js';
import { activeNode, serving, type SimNode } from './nodes.js';
import { playOut } from './snapshots.js';

/**
 * The families one node's `sys/metrics` serves, under the server's own keys. Names checked against
 * the documentation (developer.hashicorp.com vault/docs/internals/telemetry/metrics/*, and the
 * api-docs sample of sys/metrics): vault.core.unsealed, vault.core.active, vault.audit.log_request_failure
 * (rendered `vault_audit_log_request_failure`), vault.expire.num_leases, vault.expire.num_irrevocable_leases,
 * vault.token.count.by_ttl {auth_method, creation_ttl, namespace}, vault.core.response_status_code
 * {code, type}, vault.core.handle_request, vault.raft_storage.stats.fsm_pending, vault.wal.flushReady,
 * vault.wal.persistWALs, and vault.autosnapshots.save.errors labelled `snapshot_config_name` (the
 * automated snapshots telemetry page). The expiration manager, the token store, the WAL and the
 * snapshot scheduler run on the active node only, so a standby serves none of their families.
 */
export function nodeFamilies(cluster: ClusterModel, node: SimNode, now: Date): Family[] {
  const t = node.telemetry;
  const cl: Labels = { cluster: String(clusterIdentity(cluster).cluster_name) };
  const up = serving(node) && !cluster.sealed;
  const active = up && activeNode(cluster.nodes, cluster.sealed) === node;
  const gauge = (name: string, value: number, labels: Labels = {}): Family => ({ name, type: 'gauge', samples: [{ labels: { ...labels, ...cl }, value }] });
  const counter = (name: string, value: number): Family => ({ name, type: 'counter', samples: [{ labels: cl, value }] });
  const families: Family[] = [
    gauge('vault.core.unsealed', up ? 1 : 0),
    gauge('vault.core.active', active ? 1 : 0),
    counter('vault.audit.log_request_failure', t.auditRequestFailures),
    counter('vault.audit.log_response_failure', t.auditResponseFailures),
    {
      name: 'vault.core.response_status_code',
      type: 'counter',
      samples: [...t.statusCodes].map(([code, n]) => ({ labels: { code: String(code), type: `${Math.floor(code / 100)}xx`, ...cl }, value: n })),
    },
    { name: 'vault.core.handle_request', type: 'summary', samples: [{ labels: cl, timer: t.handleRequest }] },
  ];
  if (up) families.push(gauge('vault.raft_storage.stats.fsm_pending', t.settings.fsmPending));
  if (!active) return families;
  return [
    ...families,
    gauge('vault.expire.num_leases', t.settings.leases),
    gauge('vault.expire.num_irrevocable_leases', t.settings.irrevocableLeases),
    {
      name: 'vault.token.count.by_ttl',
      type: 'gauge',
      samples: tokensByTtl(cluster, t.settings.infiniteTokens, now).map((s) => ({ ...s, labels: { ...s.labels, ...cl } })),
    },
    { name: 'vault.wal.flushReady', type: 'summary', samples: [{ labels: cl, timer: t.walFlushReady }] },
    { name: 'vault.wal.persistWALs', type: 'summary', samples: [{ labels: cl, timer: t.walPersistWals }] },
    snapshotErrors(cluster, cl, now),
  ];
}

/** A failing automated snapshot save raises its configuration's counter (played out as the status endpoint plays it). */
function snapshotErrors(cluster: ClusterModel, cl: Labels, now: Date): Family {
  const set = cluster.snapshots;
  const configs = set.support === 'enterprise' ? [...set.configs.values()] : [];
  for (const s of configs) playOut(s, now);
  return {
    name: 'vault.autosnapshots.save.errors',
    type: 'counter',
    samples: configs.map((s) => ({ labels: { snapshot_config_name: s.name, ...cl }, value: s.saveErrors })),
  };
}

/** The token store's TTL buckets, each labelled by its upper bound; a token with no TTL, or one beyond the last, is `+Inf`. */
const TTL_BUCKETS: ReadonlyArray<[number, string]> = [
  [60, '1m'],
  [600, '10m'],
  [1200, '20m'],
  [3600, '1h'],
  [7200, '2h'],
  [86_400, '1d'],
  [172_800, '2d'],
  [604_800, '7d'],
  [2_592_000, '30d'],
];

export function ttlBucket(seconds: number | undefined): string {
  if (seconds === undefined || seconds <= 0) return '+Inf';
  return TTL_BUCKETS.find(([bound]) => seconds <= bound)?.[1] ?? '+Inf';
}

/** The cluster's live tokens (the root token and those the admin API made) by creation TTL, plus the fault's tokens that never expire. */
function tokensByTtl(cluster: ClusterModel, infinite: number, now: Date): Array<{ labels: Labels; value: number }> {
  const counts = new Map<string, number>();
  for (const tok of cluster.tokens.values()) {
    if (tok.expiresAt && tok.expiresAt <= now) continue;
    const issued = (tok.issuedAt ?? cluster.startedAt).getTime();
    const bucket = ttlBucket(tok.expiresAt ? Math.round((tok.expiresAt.getTime() - issued) / 1000) : undefined);
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
  }
  if (infinite > 0) counts.set('+Inf', (counts.get('+Inf') ?? 0) + infinite);
  return [...counts].map(([bucket, value]) => ({ labels: { auth_method: 'token', creation_ttl: bucket, namespace: 'root' }, value }));
}
