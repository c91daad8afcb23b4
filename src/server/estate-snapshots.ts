import { READS as R, of, one, type Families } from './estate-families.js';
import type { SnapshotView } from './estate-model.js';
import type { Found } from './problem-causes.js';
import { SNAPSHOT_FAILING_ERRORS, SNAPSHOT_STALE_SECONDS } from './snapshot-thresholds.js';

/**
 * A secrets cluster's automated raft snapshots as the status page shows them: each configuration
 * vigil polls, how long ago it last succeeded and how many attempts failed in a row. Problems at the
 * alerts' own thresholds (SecretsSnapshotFailing, SecretsSnapshotStale). Pure, like buildEstate.
 */

export function clusterSnapshots(f: Families, target: string, nowS: number): SnapshotView[] {
  return of(f, R.snapshotUp, { target })
    .map((s) => {
      const k = { target, name: s.labels.name ?? '' };
      const last = one(f, R.snapshotLastSuccess, k);
      return {
        name: k.name,
        up: s.value === 1,
        lastSuccessAgeSeconds: last === undefined ? null : Math.max(0, nowS - last),
        consecutiveErrors: one(f, R.snapshotConsecutiveErrors, k) ?? null,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

const HOUR_S = 3600;

export function snapshotProblems(snapshots: readonly SnapshotView[]): Found[] {
  return snapshots.flatMap((s): Found[] => {
    if ((s.consecutiveErrors ?? 0) >= SNAPSHOT_FAILING_ERRORS) return [{ line: `snapshot ${s.name} failing: its last ${s.consecutiveErrors} attempts failed` }];
    if (s.lastSuccessAgeSeconds !== null && s.lastSuccessAgeSeconds > SNAPSHOT_STALE_SECONDS)
      return [{ line: `snapshot ${s.name} last succeeded ${Math.floor(s.lastSuccessAgeSeconds / HOUR_S)} hours ago` }];
    return [];
  });
}
