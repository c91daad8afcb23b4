import { READS as R, of, type Families } from './estate-families.js';
import type { SecretsCluster } from './estate-model.js';
import { primaryLine, secondaryLine } from './problem-causes.js';

/**
 * One line per broken replication link: a primary that reports its secondary disconnected, and the
 * secondary (a target vigil links to that secondary_id, secrets_replication_secondary_target_info)
 * that reports its primary not connected, tell of one cause. The primary's line stays, as its alert
 * (SecretsReplicationSecondaryDisconnected) names the link; the secondary's goes under it. Changes
 * `clusters` in place and returns them.
 */
export function oneLinePerLink(f: Families, clusters: SecretsCluster[]): SecretsCluster[] {
  const byTarget = new Map(clusters.map((c) => [c.target, c]));
  for (const p of clusters)
    for (const k of p.kinds)
      for (const s of k.secondaries) {
        if (s.connected) continue;
        const cause = secondaryLine(k.kind, s.id);
        if (!p.problems.includes(cause)) continue;
        for (const info of of(f, R.secondaryTargetInfo, { target: p.target, kind: k.kind, secondary_id: s.id })) {
          const secondary = byTarget.get(info.labels.secondary_target ?? '');
          const primary = secondary?.kinds.find((x) => x.kind === k.kind)?.primary;
          if (!secondary || secondary === p || !primary || primary.connected) continue;
          const line = primaryLine(k.kind, primary.address);
          if (!secondary.problems.includes(line)) continue;
          secondary.problems = secondary.problems.filter((x) => x !== line);
          const under = p.consequences.find((c) => c.cause === cause);
          const also = `${secondary.target} reports its ${line}`;
          if (under) under.lines.push(also);
          else p.consequences.push({ cause, lines: [also] });
        }
      }
  return clusters;
}
