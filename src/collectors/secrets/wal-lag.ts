import { family, type Family } from '../../metrics/family.js';
import type { ReplicationKind } from './replication-status.js';
import type { ReplicationStatus } from './replication-status.js';

/**
 * WAL lag between two configured clusters: a primary's `last_wal` minus the `last_remote_wal` of a
 * secondary it lists in `known_secondaries` (matched through the secondary's `secondary_id`).
 * Derived across targets, so it is computed from the latest parsed status of every target.
 */
export interface LatestStatus {
  target: string;
  kind: ReplicationKind;
  status: ReplicationStatus;
}

export interface WalLagPair {
  kind: ReplicationKind;
  primary: string;
  secondary: string;
  lag: number;
}

/**
 * Every (primary, secondary) pair of the latest statuses, primaries in their order and each one's
 * secondaries in theirs. Recomputed after every poll's commit, so it looks secondaries up by
 * (kind, id) rather than scanning them per primary: with hundreds of clusters, a scan per primary
 * per commit grew with the cube of the estate.
 */
export function walLagPairs(latest: Iterable<LatestStatus>): WalLagPair[] {
  const all = [...latest];
  const byId = new Map<string, number[]>();
  all.forEach((s, i) => {
    if (s.status.mode !== 'secondary' || s.status.secondary_id === undefined) return;
    const key = `${s.kind}\0${s.status.secondary_id}`;
    byId.set(key, [...(byId.get(key) ?? []), i]);
  });
  const pairs: WalLagPair[] = [];
  for (const p of all) {
    if (p.status.mode !== 'primary' || p.status.last_wal === undefined) continue;
    const lastWal = p.status.last_wal;
    const known = [...new Set(p.status.known_secondaries.flatMap((id) => byId.get(`${p.kind}\0${id}`) ?? []))].sort((a, b) => a - b);
    for (const s of known.map((i) => all[i]!)) {
      if (s.status.last_remote_wal === undefined) continue;
      pairs.push({ kind: p.kind, primary: p.target, secondary: s.target, lag: lastWal - s.status.last_remote_wal });
    }
  }
  return pairs;
}

export const walLagFamily: Family<WalLagPair[]> = family<WalLagPair[]>({
  name: 'secrets_replication_wal_lag_entries',
  help: 'WAL entries a configured secondary is behind its configured primary (primary last_wal minus secondary last_remote_wal); from the latest scheduled polls of both.',
  type: 'gauge',
  section: 'secrets',
  labels: ['kind', 'primary', 'secondary'],
  samples: (pairs) => pairs.map((p) => ({ labels: { kind: p.kind, primary: p.primary, secondary: p.secondary }, value: p.lag })),
});

/** Holds the latest successful status per (target, kind); a failed poll forgets it. */
export class WalLagTracker {
  private readonly latest = new Map<string, LatestStatus>();
  set(target: string, kind: ReplicationKind, status: ReplicationStatus | undefined): void {
    const key = `${target}/${kind}`;
    if (status) this.latest.set(key, { target, kind, status });
    else this.latest.delete(key);
  }
  get(target: string, kind: ReplicationKind): LatestStatus | undefined {
    return this.latest.get(`${target}/${kind}`);
  }
  forgetTargetsExcept(targets: ReadonlySet<string>): void {
    for (const [k, v] of this.latest) if (!targets.has(v.target)) this.latest.delete(k);
  }
  pairs(): WalLagPair[] {
    return walLagPairs(this.latest.values());
  }
  /** The latest successful status of every (target, kind), for other views derived across targets. */
  statuses(): LatestStatus[] {
    return [...this.latest.values()];
  }
}
