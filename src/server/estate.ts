import type { TargetView } from '../engine/collection-engine.js';
import { READS as R, READ_NAMES, flag, of, one, sum, targetsOf, type Families } from './estate-families.js';
import type { AgentView, AlertPathView, Estate, OrganizationView, ReplicationKind, ReplicationSet, SecretsCluster, ShardView } from './estate-model.js';
import { agentFleet, fleetProblems, oneLinePerRegion } from './estate-fleet.js';
import { clusterNodes, nodeProblems } from './estate-nodes.js';
import { clusterSnapshots, snapshotProblems } from './estate-snapshots.js';
import { tokenDaysLeft } from './estate-token.js';
import { parseExposition } from './exposition.js';
import { oneLinePerLink } from './estate-links.js';
import { foldByCause, primaryLine, secondaryLine, type Found } from './problem-causes.js';

/**
 * The estate as the status page shows it, derived from the collectors' snapshot (what /metrics
 * serves) and the jobs' last runs: per secrets cluster the replication topology, per agent its
 * health, per organization its teams, every job, and the alert path. Problems are counted so the
 * page can put them first. Pure: the same snapshot and time give the same answer.
 */

function replicationKinds(f: Families, target: string, nowS: number): ReplicationKind[] {
  const age = (ts: number | undefined) => (ts === undefined ? null : Math.max(0, Math.round(nowS - ts)));
  return of(f, R.replicationMode, { target })
    .filter((m) => m.value === 1 && m.labels.mode !== 'disabled')
    .map((m) => {
      const kind = m.labels.kind ?? '';
      const k = { target, kind };
      const lag = (id: string) => one(f, R.walLag, { kind, primary: target, secondary: id }) ?? null;
      const primary = of(f, R.primaryConnected, k)[0];
      const address = primary?.labels.primary_cluster_address ?? '';
      return {
        kind,
        mode: m.labels.mode ?? '',
        state: of(f, R.replicationState, k).find((s) => s.value === 1)?.labels.state ?? null,
        up: one(f, R.replicationUp, k) === 1,
        merkleCorrupted: one(f, R.merkleTreeCorrupted, k) === 1,
        secondaries: of(f, R.secondaryConnected, k).map((s) => {
          const id = s.labels.secondary_id ?? '';
          const hb = one(f, R.secondaryHeartbeat, { ...k, secondary_id: id });
          return { id, connected: s.value === 1, heartbeatAgeSeconds: age(hb), walLag: lag(id) };
        }),
        primary: primary
          ? { address, connected: primary.value === 1, heartbeatAgeSeconds: age(one(f, R.primaryHeartbeat, { ...k, primary_cluster_address: address })) }
          : null,
      };
    });
}

function secretsCluster(f: Families, target: string, nowS: number): SecretsCluster {
  const kinds = replicationKinds(f, target, nowS);
  const t = { target };
  const attemptUp = one(f, R.attemptUp, t);
  const merkleUp = one(f, R.merkleCheckUp, t);
  const sealed = flag(one(f, R.sealed, t));
  const found: Found[] = [];
  // One line per cause: a sealed cluster's unreadable statuses are what sealing does, not more problems.
  const unreadable = of(f, R.replicationUp, t)
    .filter((k) => k.value !== 1)
    .map((k) => k.labels.kind ?? '');
  const line = (text: string) => found.push({ line: text });
  if (sealed) line(unreadable.length ? `sealed (so its ${unreadable.join(' and ')} replication status cannot be read)` : 'sealed');
  // Unreadable for blocked audit devices, it is their consequence (problem-causes.ts).
  else if (unreadable.length) found.push({ kind: 'replication-unreadable', line: `${unreadable.join(' and ')} replication status unreadable` });
  for (const k of kinds) {
    if (k.merkleCorrupted) line(`${k.kind} merkle tree corrupted`);
    for (const s of k.secondaries) if (!s.connected) line(secondaryLine(k.kind, s.id));
    if (k.primary && !k.primary.connected) line(primaryLine(k.kind, k.primary.address));
  }
  const merkleCheck =
    merkleUp === undefined
      ? null
      : {
          up: merkleUp === 1,
          corruptedRoot: one(f, R.merkleCorruptedRoot, t) === 1,
          corruptedTrees: sum(of(f, R.merkleCorruptedTrees, t)),
        };
  if (merkleCheck && (merkleCheck.corruptedRoot || merkleCheck.corruptedTrees > 0)) line('merkle check found corruption');
  const nodes = clusterNodes(f, target);
  if (nodes) found.push(...nodeProblems(nodes, sealed, unreadable.length > 0));
  // Where no node is asked, the configured address stands for the cluster.
  if (one(f, R.requestsBlocked, t) === 1 && !nodes?.nodes.some((n) => n.requestsBlocked))
    found.push({ kind: 'requests-blocked', line: 'requests at its address blocked: audit devices cannot log, nothing audited is served' });
  const snapshots = clusterSnapshots(f, target, nowS);
  found.push(...snapshotProblems(snapshots));
  const started = one(f, R.attemptStarted, t) === 1;
  if (started) line('DR operation token attempt in progress');
  return {
    target,
    sealed,
    kinds,
    drTokenAttempt: attemptUp === 1 ? { started, progress: one(f, R.attemptProgress, t) ?? 0, required: one(f, R.attemptRequired, t) ?? 0 } : null,
    merkleCheck,
    nodes,
    tokenDaysLeft: tokenDaysLeft(f, R.secretsTokenExpiry, target, nowS),
    snapshots,
    ...foldByCause(found),
  };
}

function agent(f: Families, target: string, nowS: number): AgentView {
  const t = { target };
  const info = of(f, R.agentInfo, t)[0];
  const health = of(f, R.agentHealthOk, t).map((s) => ({ role: s.labels.role ?? '', ok: s.value === 1 }));
  const members = Object.fromEntries(of(f, R.agentMembers, t).map((s) => [s.labels.status ?? '', s.value]));
  const failedMembers = of(f, R.agentMemberStatus, { target, status: 'failed' })
    .filter((s) => s.value === 1)
    .map((s) => s.labels.member ?? '');
  const up = one(f, R.agentUp, t) === 1;
  const knownServers = one(f, R.agentKnownServers, t) ?? null;
  const raftLeader = flag(one(f, R.agentRaftLeaderKnown, t));
  const problems: string[] = [];
  if (!up) problems.push('agent unreachable');
  for (const h of health) if (!h.ok) problems.push(`${h.role} unhealthy`);
  if (failedMembers.length) problems.push(`${failedMembers.length} failed member${failedMembers.length > 1 ? 's' : ''}`);
  if (knownServers === 0) problems.push('knows no servers');
  if (raftLeader === false) problems.push('no raft leader');
  const fleet = agentFleet(f, target);
  problems.push(...fleetProblems(fleet).map((p) => p.line));
  return {
    target,
    up,
    name: info?.labels.name ?? null,
    region: info?.labels.region || null,
    server: info ? info.labels.server === 'true' : null,
    health,
    members,
    failedMembers,
    knownServers,
    raftLeader,
    fleet,
    tokenDaysLeft: tokenDaysLeft(f, R.agentTokenExpiry, target, nowS),
    problems,
    consequences: [],
  };
}

function organizations(f: Families): OrganizationView[] {
  return of(f, R.teamsUp).map((u) => {
    const k = { target: u.labels.target ?? '', organization: u.labels.organization ?? '' };
    const breaches = of(f, R.teamAccessInconsistent, k).map((s) => ({ team: s.labels.team ?? '', rule: s.labels.rule ?? '' }));
    const problems = [...(u.value === 1 ? [] : ['teams listing unreadable']), ...breaches.map((b) => `team ${b.team} breaks ${b.rule}`)];
    return { ...k, up: u.value === 1, teams: sum(of(f, R.organizationTeams, k)), breaches, problems };
  });
}

function replicationSets(f: Families): ReplicationSet[] {
  return of(f, R.setPrimaries).map((p) => {
    const k = { kind: p.labels.kind ?? '', replication_set: p.labels.replication_set ?? '' };
    const members = of(f, R.setMemberInfo, k).map((m) => ({ target: m.labels.target ?? '', mode: m.labels.mode ?? '' }));
    return { kind: k.kind, set: k.replication_set, primaries: p.value, members };
  });
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/**
 * Things with problems first, then by name: a total order, so cards keep their places across
 * refreshes whatever order the snapshot listed them in (Array.sort is stable, the snapshot's order is not).
 */
const problemsFirst = <T extends { target: string; problems: string[] }>(xs: T[], name: (x: T) => string = (x) => x.target) =>
  xs.sort((a, b) => Number(b.problems.length > 0) - Number(a.problems.length > 0) || compare(name(a), name(b)));
const targetRank = (t: TargetView) => (t.up === false ? 0 : t.up === null ? 1 : 2);

function shardOf(f: Families): ShardView | null {
  const [ordinal, total] = [one(f, R.shardOrdinal, {}), one(f, R.totalShards, {})];
  if (ordinal === undefined || total === undefined || total <= 1) return null;
  return { ordinal, total, polled: one(f, R.shardTargets, { shard: String(ordinal) }) ?? 0, configured: sum(of(f, R.shardTargets)) };
}

export function buildEstate(snapshotText: string, targets: readonly TargetView[], now: number): Estate {
  const f = parseExposition(snapshotText, READ_NAMES);
  const nowS = now / 1000;
  const secrets = problemsFirst(
    oneLinePerLink(
      f,
      [...new Set([...targetsOf(f, R.sealed), ...targetsOf(f, R.replicationUp)])].map((t) => secretsCluster(f, t, nowS)),
    ),
  );
  const agents = problemsFirst(oneLinePerRegion(targetsOf(f, R.agentUp).map((t) => agent(f, t, nowS))));
  const orgs = problemsFirst(organizations(f), (o) => `${o.target}\u0000${o.organization}`);
  const sets = replicationSets(f);
  const lastSeen = one(f, R.watchdogLastSeen, {});
  const alertPath: AlertPathView = {
    watchdogHealthy: flag(one(f, R.watchdogHealthy, {})),
    watchdogLastSeen: lastSeen ? new Date(lastSeen * 1000).toISOString() : null,
    rejected: Object.fromEntries(of(f, R.sinkRejected).map((s) => [s.labels.reason ?? '', s.value])),
    notificationsTotal: sum(of(f, R.sinkNotifications)),
  };
  const sortedTargets = [...targets].sort((a, b) => targetRank(a) - targetRank(b));
  // A target down whose cluster, agent or organization already shows a problem is that problem's
  // consequence (a sealed cluster, an unreachable agent), not one more.
  const explained = new Set([...secrets, ...agents, ...orgs].filter((x) => x.problems.length > 0).map((x) => x.target));
  const problems =
    [...secrets, ...agents, ...orgs].reduce((n, x) => n + x.problems.length, 0) +
    sets.filter((s) => s.primaries > 1).length +
    targets.filter((t) => t.up === false && !explained.has(t.target)).length +
    (alertPath.watchdogHealthy === false ? 1 : 0);
  return {
    generatedAt: new Date(now).toISOString(),
    shard: shardOf(f),
    problems,
    secrets,
    replicationSets: sets,
    agents,
    organizations: orgs,
    targets: sortedTargets,
    alertPath,
  };
}
