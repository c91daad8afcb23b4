import type { TargetView } from '../engine/collection-engine.js';
import { parseExposition, type Sample } from './exposition.js';

/**
 * The estate as the status page shows it, derived from the collectors' snapshot (what /metrics
 * serves) and the jobs' last runs: per secrets cluster the replication topology, per agent its
 * health, per organization its teams, every job, and the alert path. Problems are counted so the
 * page can put them first. Pure: the same snapshot and time give the same answer.
 */

export interface ReplicationKind {
  kind: string;
  mode: string;
  state: string | null;
  up: boolean;
  merkleCorrupted: boolean;
  secondaries: Array<{ id: string; connected: boolean; heartbeatAgeSeconds: number | null; walLag: number | null }>;
  primary: { address: string; connected: boolean; heartbeatAgeSeconds: number | null } | null;
}

export interface SecretsCluster {
  target: string;
  sealed: boolean | null;
  kinds: ReplicationKind[];
  drTokenAttempt: { started: boolean; progress: number; required: number } | null;
  merkleCheck: { up: boolean; corruptedRoot: boolean; corruptedTrees: number } | null;
  problems: string[];
}

export interface ReplicationSet {
  kind: string;
  set: string;
  primaries: number;
  members: Array<{ target: string; mode: string }>;
}

export interface AgentView {
  target: string;
  up: boolean;
  name: string | null;
  server: boolean | null;
  health: Array<{ role: string; ok: boolean }>;
  members: Record<string, number>;
  failedMembers: string[];
  knownServers: number | null;
  raftLeader: boolean | null;
  problems: string[];
}

export interface OrganizationView {
  target: string;
  organization: string;
  up: boolean;
  teams: number;
  breaches: Array<{ team: string; rule: string }>;
  problems: string[];
}

export interface AlertPathView {
  watchdogHealthy: boolean | null;
  watchdogLastSeen: string | null;
  rejected: Record<string, number>;
  notificationsTotal: number;
}

export interface Estate {
  generatedAt: string;
  problems: number;
  secrets: SecretsCluster[];
  replicationSets: ReplicationSet[];
  agents: AgentView[];
  organizations: OrganizationView[];
  targets: TargetView[];
  alertPath: AlertPathView;
}

const S = 'secrets_replication_';
const A = 'scheduler_agent_';
const FAMILIES = new Set([
  `${S}up`, `${S}mode`, `${S}state`, `${S}merkle_tree_corrupted`, `${S}secondary_connected`,
  `${S}secondary_last_heartbeat_timestamp_seconds`, `${S}primary_connected`, `${S}primary_last_heartbeat_timestamp_seconds`,
  `${S}wal_lag_entries`, `${S}set_primaries`, `${S}set_member_info`, 'secrets_sealed', 'secrets_dr_operation_token_attempt_up',
  'secrets_dr_operation_token_attempt_started', 'secrets_dr_operation_token_attempt_progress', 'secrets_dr_operation_token_attempt_required',
  'secrets_merkle_check_up', 'secrets_merkle_corrupted_root', 'secrets_merkle_corrupted_trees',
  `${A}up`, `${A}info`, `${A}health_ok`, `${A}members`, `${A}member_status`, `${A}known_servers`, `${A}raft_leader_known`,
  'teams_up', 'teams_organization_teams', 'teams_team_access_inconsistent',
  'vigil_alertsink_watchdog_healthy', 'vigil_alertsink_watchdog_last_seen_timestamp_seconds', 'vigil_alertsink_rejected_total',
  'vigil_alertsink_notifications_total',
]);

type Families = Map<string, Sample[]>;
const of = (f: Families, name: string, match: Record<string, string> = {}) =>
  (f.get(name) ?? []).filter((s) => Object.entries(match).every(([k, v]) => s.labels[k] === v));
const one = (f: Families, name: string, match: Record<string, string>) => of(f, name, match)[0]?.value;
const flag = (v: number | undefined) => (v === undefined ? null : v === 1);
const targetsOf = (f: Families, name: string) => [...new Set(of(f, name).map((s) => s.labels.target ?? ''))];

function replicationKinds(f: Families, target: string, nowS: number): ReplicationKind[] {
  const age = (ts: number | undefined) => (ts === undefined ? null : Math.max(0, Math.round(nowS - ts)));
  return of(f, `${S}mode`, { target })
    .filter((m) => m.value === 1 && m.labels.mode !== 'disabled')
    .map((m) => {
      const kind = m.labels.kind ?? '';
      const k = { target, kind };
      const lag = (id: string) => one(f, `${S}wal_lag_entries`, { kind, primary: target, secondary: id }) ?? null;
      const primary = of(f, `${S}primary_connected`, k)[0];
      const address = primary?.labels.primary_cluster_address ?? '';
      return {
        kind,
        mode: m.labels.mode ?? '',
        state: of(f, `${S}state`, k).find((s) => s.value === 1)?.labels.state ?? null,
        up: one(f, `${S}up`, k) === 1,
        merkleCorrupted: one(f, `${S}merkle_tree_corrupted`, k) === 1,
        secondaries: of(f, `${S}secondary_connected`, k).map((s) => {
          const id = s.labels.secondary_id ?? '';
          const hb = one(f, `${S}secondary_last_heartbeat_timestamp_seconds`, { ...k, secondary_id: id });
          return { id, connected: s.value === 1, heartbeatAgeSeconds: age(hb), walLag: lag(id) };
        }),
        primary: primary
          ? { address, connected: primary.value === 1, heartbeatAgeSeconds: age(one(f, `${S}primary_last_heartbeat_timestamp_seconds`, { ...k, primary_cluster_address: address })) }
          : null,
      };
    });
}

function secretsCluster(f: Families, target: string, nowS: number): SecretsCluster {
  const kinds = replicationKinds(f, target, nowS);
  const t = { target };
  const attemptUp = one(f, 'secrets_dr_operation_token_attempt_up', t);
  const merkleUp = one(f, 'secrets_merkle_check_up', t);
  const sealed = flag(one(f, 'secrets_sealed', t));
  const problems: string[] = [];
  // One line per cause: a sealed cluster's unreadable statuses are what sealing does, not more problems.
  const unreadable = of(f, `${S}up`, t).filter((k) => k.value !== 1).map((k) => k.labels.kind ?? '');
  if (sealed) problems.push(unreadable.length ? `sealed (so its ${unreadable.join(' and ')} replication status cannot be read)` : 'sealed');
  else if (unreadable.length) problems.push(`${unreadable.join(' and ')} replication status unreadable`);
  for (const k of kinds) {
    if (k.merkleCorrupted) problems.push(`${k.kind} merkle tree corrupted`);
    for (const s of k.secondaries) if (!s.connected) problems.push(`${k.kind} secondary ${s.id} disconnected`);
    if (k.primary && !k.primary.connected) problems.push(`${k.kind} primary ${k.primary.address} not connected`);
  }
  const merkleCheck =
    merkleUp === undefined
      ? null
      : {
          up: merkleUp === 1,
          corruptedRoot: one(f, 'secrets_merkle_corrupted_root', t) === 1,
          corruptedTrees: of(f, 'secrets_merkle_corrupted_trees', t).reduce((n, s) => n + s.value, 0),
        };
  if (merkleCheck && (merkleCheck.corruptedRoot || merkleCheck.corruptedTrees > 0)) problems.push('merkle check found corruption');
  const started = one(f, 'secrets_dr_operation_token_attempt_started', t) === 1;
  if (started) problems.push('DR operation token attempt in progress');
  return {
    target,
    sealed,
    kinds,
    drTokenAttempt:
      attemptUp === 1 ? { started, progress: one(f, 'secrets_dr_operation_token_attempt_progress', t) ?? 0, required: one(f, 'secrets_dr_operation_token_attempt_required', t) ?? 0 } : null,
    merkleCheck,
    problems,
  };
}

function agent(f: Families, target: string): AgentView {
  const t = { target };
  const info = of(f, `${A}info`, t)[0];
  const health = of(f, `${A}health_ok`, t).map((s) => ({ role: s.labels.role ?? '', ok: s.value === 1 }));
  const members = Object.fromEntries(of(f, `${A}members`, t).map((s) => [s.labels.status ?? '', s.value]));
  const failedMembers = of(f, `${A}member_status`, { target, status: 'failed' })
    .filter((s) => s.value === 1)
    .map((s) => s.labels.member ?? '');
  const up = one(f, `${A}up`, t) === 1;
  const knownServers = one(f, `${A}known_servers`, t) ?? null;
  const raftLeader = flag(one(f, `${A}raft_leader_known`, t));
  const problems: string[] = [];
  if (!up) problems.push('agent unreachable');
  for (const h of health) if (!h.ok) problems.push(`${h.role} unhealthy`);
  if (failedMembers.length) problems.push(`${failedMembers.length} failed member${failedMembers.length > 1 ? 's' : ''}`);
  if (knownServers === 0) problems.push('knows no servers');
  if (raftLeader === false) problems.push('no raft leader');
  return { target, up, name: info?.labels.name ?? null, server: info ? info.labels.server === 'true' : null, health, members, failedMembers, knownServers, raftLeader, problems };
}

function organizations(f: Families): OrganizationView[] {
  return of(f, 'teams_up').map((u) => {
    const k = { target: u.labels.target ?? '', organization: u.labels.organization ?? '' };
    const breaches = of(f, 'teams_team_access_inconsistent', k).map((s) => ({ team: s.labels.team ?? '', rule: s.labels.rule ?? '' }));
    const problems = [...(u.value === 1 ? [] : ['teams listing unreadable']), ...breaches.map((b) => `team ${b.team} breaks ${b.rule}`)];
    return { ...k, up: u.value === 1, teams: of(f, 'teams_organization_teams', k).reduce((n, s) => n + s.value, 0), breaches, problems };
  });
}

function replicationSets(f: Families): ReplicationSet[] {
  return of(f, `${S}set_primaries`).map((p) => {
    const k = { kind: p.labels.kind ?? '', replication_set: p.labels.replication_set ?? '' };
    const members = of(f, `${S}set_member_info`, k).map((m) => ({ target: m.labels.target ?? '', mode: m.labels.mode ?? '' }));
    return { kind: k.kind, set: k.replication_set, primaries: p.value, members };
  });
}

const problemsFirst = <T extends { problems: string[] }>(xs: T[]) => xs.sort((a, b) => b.problems.length - a.problems.length);
const targetRank = (t: TargetView) => (t.up === false ? 0 : t.up === null ? 1 : 2);

export function buildEstate(snapshotText: string, targets: readonly TargetView[], now: number): Estate {
  const f = parseExposition(snapshotText, FAMILIES);
  const nowS = now / 1000;
  const secrets = problemsFirst(targetsOf(f, 'secrets_sealed').concat(targetsOf(f, `${S}up`)).filter((t, i, a) => a.indexOf(t) === i).map((t) => secretsCluster(f, t, nowS)));
  const agents = problemsFirst(targetsOf(f, `${A}up`).map((t) => agent(f, t)));
  const orgs = problemsFirst(organizations(f));
  const sets = replicationSets(f);
  const lastSeen = one(f, 'vigil_alertsink_watchdog_last_seen_timestamp_seconds', {});
  const alertPath: AlertPathView = {
    watchdogHealthy: flag(one(f, 'vigil_alertsink_watchdog_healthy', {})),
    watchdogLastSeen: lastSeen ? new Date(lastSeen * 1000).toISOString() : null,
    rejected: Object.fromEntries(of(f, 'vigil_alertsink_rejected_total').map((s) => [s.labels.reason ?? '', s.value])),
    notificationsTotal: of(f, 'vigil_alertsink_notifications_total').reduce((n, s) => n + s.value, 0),
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
  return { generatedAt: new Date(now).toISOString(), problems, secrets, replicationSets: sets, agents, organizations: orgs, targets: sortedTargets, alertPath };
}
