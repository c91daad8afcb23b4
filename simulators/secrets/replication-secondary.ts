import { badRequest } from './api-error.js';
import { secondaryState, type ClusterModel, type Kind, type Link, type SecondaryRole } from './cluster.js';
import type { ActivationGrant, Fleet } from './fleet.js';
import { article, primaryRole, secondaryRole } from './replication-roles.js';

/** The spec's state table for a secondary (and for a cluster becoming one); every refusal is a 400. */

function detach(role: SecondaryRole): void {
  if (role.link) role.link.ended = true;
  delete role.link;
}

/** Validates and consumes an activation token. */
function redeem(fleet: Fleet, kind: Kind, token: string, now: Date): ActivationGrant {
  const grant = fleet.activationTokens.get(token);
  if (!grant || grant.kind !== kind) throw badRequest('invalid activation token');
  fleet.activationTokens.delete(token);
  if (grant.expiresAt <= now) throw badRequest('activation token has expired');
  const role = grant.primary.replication[kind].role;
  if (role.mode !== 'primary' || role.clusterId !== grant.primaryClusterId || !role.known.has(grant.secondaryId)) {
    throw badRequest('the primary that issued this activation token is no longer accepting it');
  }
  return grant;
}

function connect(cluster: ClusterModel, kind: Kind, primary: ClusterModel, secondaryId: string, primaryApiAddr: string, now: Date): Link {
  const role = primaryRole(primary, kind);
  const previous = role.links.get(secondaryId);
  if (previous) previous.ended = true;
  const link: Link = {
    kind,
    secondaryId,
    primary,
    secondary: cluster,
    primaryApiAddr: primaryApiAddr || primary.url,
    adminConnected: true,
    listed: true,
    ended: false,
    heartbeatStopped: false,
    lastHeartbeat: now,
    following: true,
  };
  role.known.add(secondaryId);
  role.links.set(secondaryId, link);
  return link;
}

/** Storage is replaced by the primary's: local tokens, DR operation tokens and merkle history go. */
function wipe(cluster: ClusterModel, kind: Kind, primary: ClusterModel): void {
  for (const token of cluster.tokens.keys()) if (token !== cluster.rootToken) cluster.tokens.delete(token);
  cluster.operationTokens.clear();
  delete cluster.attempt;
  const state = cluster.replication[kind];
  state.corruptRoot = false;
  state.corruptTrees.clear();
  delete state.lastCorruptionCheck;
  delete state.lastReindex;
  // A DR secondary holds the primary's barrier, so the primary's unseal key shares authorize it.
  if (kind === 'dr') cluster.keys = { shares: [...primary.keys.shares], threshold: primary.keys.threshold };
}

export function enableSecondary(fleet: Fleet, cluster: ClusterModel, kind: Kind, token: string, primaryApiAddr = '', now = new Date()): void {
  const role = cluster.replication[kind].role;
  if (role.mode === 'secondary') throw badRequest(`this cluster is already ${article(kind)} secondary; use update-primary`);
  if (role.mode === 'primary') throw badRequest(`this cluster is ${article(kind)} primary; demote or disable it first`);
  const grant = redeem(fleet, kind, token, now);
  if (grant.primary === cluster) throw badRequest('a cluster cannot be a secondary of itself');
  wipe(cluster, kind, grant.primary);
  const link = connect(cluster, kind, grant.primary, grant.secondaryId, primaryApiAddr, now);
  const source = primaryRole(grant.primary, kind);
  // The replication set has one cluster ID, shared by its primary and secondaries (as the real
  // service's status samples show): a secondary takes its primary's.
  cluster.replication[kind].role = {
    mode: 'secondary',
    clusterId: source.clusterId,
    secondaryId: grant.secondaryId,
    link,
    lastRemoteWal: source.lastWal,
    dataOrigin: source.clusterId,
    demoted: false,
  };
}

/** States in which the local data is mid-rebuild, so a promotion would serve a torn copy. */
const UNSAFE_TO_PROMOTE = new Set(['bootstrapping', 'merkle-diff', 'merkle-sync', 'building']);

export function promoteSecondary(cluster: ClusterModel, kind: Kind, force: boolean, primaryClusterAddr = ''): void {
  const role = secondaryRole(cluster, kind);
  const state = secondaryState(role);
  if (!force && UNSAFE_TO_PROMOTE.has(state)) {
    throw badRequest(`refusing to promote while the secondary is in state "${state}"; set force to override`);
  }
  detach(role);
  cluster.replication[kind].role = {
    mode: 'primary',
    clusterId: role.clusterId,
    lastWal: role.lastRemoteWal,
    primaryClusterAddr,
    known: new Set(),
    links: new Map(),
    pathsFilters: new Map(),
  };
}

export function disableSecondary(cluster: ClusterModel, kind: Kind): void {
  detach(secondaryRole(cluster, kind));
  cluster.replication[kind].role = { mode: 'disabled' };
}

export interface UpdatePrimaryRequest {
  token?: string;
  updatePrimaryAddrs: string[];
  primaryApiAddr?: string;
}

export function updatePrimary(fleet: Fleet, cluster: ClusterModel, kind: Kind, req: UpdatePrimaryRequest, now = new Date()): void {
  const role = secondaryRole(cluster, kind);
  const byAddrs = req.updatePrimaryAddrs.length > 0;
  if (req.token !== undefined && byAddrs) throw badRequest('use either "token" or "update_primary_addrs", not both');
  if (req.token === undefined && !byAddrs) throw badRequest('one of "token" or "update_primary_addrs" is required');
  if (req.token === '') {
    detach(role);
    role.secondaryId = '';
    return;
  }
  if (req.token !== undefined) {
    const grant = redeem(fleet, kind, req.token, now);
    attach(role, connect(cluster, kind, grant.primary, grant.secondaryId, req.primaryApiAddr ?? '', now));
    role.secondaryId = grant.secondaryId;
    role.demoted = false;
    return;
  }
  if (kind === 'dr' && role.demoted) {
    throw badRequest('a DR secondary demoted after a failover needs an activation token; update_primary_addrs is not allowed');
  }
  if (role.secondaryId === '') throw badRequest('this secondary has no secondary id yet; use an activation token');
  const primary = req.updatePrimaryAddrs
    .map((addr) => fleet.findByAddress(addr))
    .find((c) => c !== undefined && c !== cluster && !c.sealed && c.replication[kind].role.mode === 'primary');
  if (!primary) throw badRequest('no primary answered at any of update_primary_addrs');
  attach(role, connect(cluster, kind, primary, role.secondaryId, req.primaryApiAddr ?? '', now));
}

/** Data is not wiped on a primary change; merkle sync converges it on the new primary's copy. */
function attach(role: SecondaryRole, link: Link): void {
  detach(role);
  role.link = link;
  role.dataOrigin = primaryRole(link.primary, link.kind).clusterId;
}
