import { ApiError, notFound, ok, type Reply } from './api-error.js';
import type { ClusterModel } from './cluster.js';
import { clusterIdentity } from './node-api.js';
import { SIM_BUILD_DATE, type SimNode } from './nodes.js';

/**
 * A node's `sys/seal-status` and `sys/seal-backend-status`: unauthenticated, answered sealed or not,
 * each about the node that answers (the servers' own handlers, not forwarded to the active node).
 * Shapes by profile: `current` answers as 1.16+ (build date, recovery seal type, removal, the
 * backend status with `fully_wrapped`); the older profiles as servers before 1.10 (no build date)
 * and before 1.15, which have no seal backend status: the router answers 404 as for any unknown path.
 */
type SealHandler = (cluster: ClusterModel, n: SimNode) => Reply;

/** A Seal HA server reports its seal as `multiseal`; its recovery keys are Shamir shares. */
const sealType = (cluster: ClusterModel): string => (cluster.sealBackends.length > 0 ? 'multiseal' : 'shamir');

/** RFC 3339 to the second, as the documented answers write times. */
const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `sys/seal-status`: t and n of the unseal keys (of the recovery keys under an auto seal), and a sealed node's progress. */
function sealStatusReply(cluster: ClusterModel, n: SimNode): Reply {
  const sealed = n.sealed || cluster.sealed;
  const autoSeal = cluster.sealBackends.length > 0;
  const current = cluster.quirks.extraFields;
  return ok({
    type: sealType(cluster),
    initialized: true,
    sealed,
    t: cluster.keys.threshold,
    n: cluster.keys.shares.length,
    progress: sealed ? n.unsealProgress : 0,
    nonce: sealed ? n.unsealNonce : '',
    version: n.version,
    ...(current ? { build_date: SIM_BUILD_DATE } : {}),
    migration: false,
    // A sealed node cannot read its cluster's name and id.
    ...(sealed ? {} : clusterIdentity(cluster)),
    recovery_seal: autoSeal,
    storage_type: 'raft',
    ...(current && autoSeal ? { recovery_seal_type: 'shamir' } : {}),
    ...(current ? { removed_from_cluster: n.removed } : {}),
  });
}

/**
 * `sys/seal-backend-status`: healthy only while every backend is, unhealthy since the earliest time
 * an unhealthy backend was last seen healthy. A Shamir seal answers as one healthy backend `shamir`.
 */
function sealBackendStatusReply(cluster: ClusterModel, n: SimNode): Reply {
  if (!cluster.quirks.extraFields) throw notFound();
  if (cluster.sealBackends.length === 0) return ok({ healthy: true, backends: [{ name: 'shamir', healthy: true }] });
  const down = n.sealBackendsDown;
  const earliest = [...down.values()].sort((a, b) => a.getTime() - b.getTime())[0];
  return ok({
    healthy: down.size === 0,
    ...(earliest ? { unhealthy_since: rfc3339(earliest) } : {}),
    fully_wrapped: true,
    backends: cluster.sealBackends.map((name) => {
      const since = down.get(name);
      return { name, healthy: since === undefined, ...(since ? { unhealthy_since: rfc3339(since) } : {}) };
    }),
  });
}

const SEAL_ROUTES: Record<string, SealHandler> = {
  '/v1/sys/seal-status': sealStatusReply,
  '/v1/sys/seal-backend-status': sealBackendStatusReply,
};

/** The seal endpoint at `path`, GET only (anything else: 405 with no error text, as the servers answer); undefined for other paths. */
export function sealRoute(path: string): ((cluster: ClusterModel, n: SimNode, method: string) => Reply) | undefined {
  const handler = SEAL_ROUTES[path];
  if (!handler) return undefined;
  return (cluster, n, method) => {
    if (method !== 'GET') throw new ApiError(405, []);
    return handler(cluster, n);
  };
}
