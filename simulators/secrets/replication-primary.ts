import { randomBytes } from 'node:crypto';
import { badRequest } from './api-error.js';
import { newClusterId, type ClusterModel, type Kind, type PrimaryRole } from './cluster.js';
import type { Fleet } from './fleet.js';
import { article, primaryRole } from './replication-roles.js';

/** The spec's state table for a primary (and for a cluster becoming one); every refusal is a 400. */

function endAllLinks(role: PrimaryRole): void {
  for (const link of role.links.values()) link.ended = true;
}

export function enablePrimary(cluster: ClusterModel, kind: Kind, primaryClusterAddr = ''): void {
  const role = cluster.replication[kind].role;
  if (role.mode === 'secondary') {
    throw badRequest(`this cluster is ${article(kind)} secondary; it must be promoted before it can act as a primary`);
  }
  if (role.mode === 'primary') throw badRequest(`this cluster is already ${article(kind)} primary`);
  // A fresh ID on every enable is what forces secondaries of an earlier incarnation to be wiped.
  cluster.replication[kind].role = {
    mode: 'primary',
    clusterId: newClusterId(),
    lastWal: 0,
    primaryClusterAddr,
    known: new Set(),
    links: new Map(),
    pathsFilters: new Map(),
  };
}

export function demotePrimary(cluster: ClusterModel, kind: Kind): void {
  const role = primaryRole(cluster, kind);
  endAllLinks(role);
  cluster.replication[kind].role = {
    mode: 'secondary',
    clusterId: role.clusterId,
    secondaryId: '',
    lastRemoteWal: role.lastWal,
    dataOrigin: role.clusterId,
    demoted: true,
  };
}

export function disablePrimary(cluster: ClusterModel, kind: Kind): void {
  endAllLinks(primaryRole(cluster, kind));
  cluster.replication[kind].role = { mode: 'disabled' };
}

export function issueSecondaryToken(fleet: Fleet, cluster: ClusterModel, kind: Kind, secondaryId: string, ttlSeconds: number, now = new Date()): string {
  const role = primaryRole(cluster, kind);
  if (role.known.has(secondaryId)) throw badRequest(`a secondary with id "${secondaryId}" already exists; revoke it first`);
  role.known.add(secondaryId);
  const token = `eyJ${randomBytes(48).toString('base64url')}`;
  fleet.activationTokens.set(token, {
    kind,
    primary: cluster,
    primaryClusterId: role.clusterId,
    secondaryId,
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
  });
  return token;
}

export function revokeSecondary(fleet: Fleet, cluster: ClusterModel, kind: Kind, secondaryId: string): void {
  const role = primaryRole(cluster, kind);
  if (!role.known.has(secondaryId)) throw badRequest(`no secondary with id "${secondaryId}"`);
  role.known.delete(secondaryId);
  const link = role.links.get(secondaryId);
  if (link) link.ended = true;
  role.links.delete(secondaryId);
  for (const [token, grant] of fleet.activationTokens) {
    if (grant.primary === cluster && grant.kind === kind && grant.secondaryId === secondaryId) fleet.activationTokens.delete(token);
  }
}
