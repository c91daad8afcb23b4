import { badRequest } from './api-error.js';
import type { ClusterModel, Kind, PrimaryRole, SecondaryRole } from './cluster.js';

/**
 * The role a cluster holds for one kind of replication; asking for one it does not hold is a 400
 * like the real service's. The spec's state table is in replication-primary.ts and replication-secondary.ts.
 */

export const article = (kind: Kind): string => (kind === 'dr' ? 'a DR' : 'a performance');

export function primaryRole(cluster: ClusterModel, kind: Kind): PrimaryRole {
  const role = cluster.replication[kind].role;
  if (role.mode !== 'primary') throw badRequest(`this cluster is not ${article(kind)} primary (mode: ${role.mode})`);
  return role;
}

export function secondaryRole(cluster: ClusterModel, kind: Kind): SecondaryRole {
  const role = cluster.replication[kind].role;
  if (role.mode !== 'secondary') throw badRequest(`this cluster is not ${article(kind)} secondary (mode: ${role.mode})`);
  return role;
}
