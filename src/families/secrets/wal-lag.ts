import { family, type Family } from '../../metrics/family.js';
import type { ReplicationKind } from '../../config/schema.js';
import type { ReplicationStatus } from '../../upstream/secrets/replication-status.js';

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

export function walLagPairs(latest: Iterable<LatestStatus>): WalLagPair[] {
  const all = [...latest];
  const secondaries = all.filter((l) => l.status.mode === 'secondary' && l.status.secondary_id !== undefined);
  const pairs: WalLagPair[] = [];
  for (const p of all) {
    if (p.status.mode !== 'primary' || p.status.last_wal === undefined) continue;
    const known = new Set(p.status.known_secondaries);
    for (const s of secondaries) {
      if (s.kind !== p.kind || !known.has(s.status.secondary_id as string) || s.status.last_remote_wal === undefined) continue;
      pairs.push({ kind: p.kind, primary: p.target, secondary: s.target, lag: p.status.last_wal - s.status.last_remote_wal });
    }
  }
  return pairs;
}

export const walLagFamily: Family<WalLagPair[]> = family<WalLagPair[]>({
  name: 'secrets_replication_wal_lag_entries',
  help: 'WAL entries a configured secondary is behind its configured primary (primary last_wal minus secondary last_remote_wal); from the latest scheduled polls of both.',
  type: 'gauge',
  area: 'secrets',
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
