import { family, type Family } from '../../metrics/family.js';
import type { LatestStatus } from './wal-lag.js';

/**
 * Which configured target is the secondary a primary knows by a `secondary_id`: the link that lets
 * the rules tell that a primary's disconnected secondary is a cluster that pages for itself (a
 * sealed one). Only what the answers say links them: the secondary's own status names its
 * `secondary_id` and the primary lists it in `known_secondaries`. Ids are names an operator picked
 * ("dr", "secondary-1"), so when more than one configured primary or secondary of a kind uses one,
 * a pair is linked only if they share their replication set's `cluster_id` too. Pure.
 */
export interface SecondaryTarget {
  kind: LatestStatus['kind'];
  primary: string;
  secondaryId: string;
  secondary: string;
}

function byKindAndId(entries: Iterable<[string, LatestStatus]>): Map<string, LatestStatus[]> {
  const map = new Map<string, LatestStatus[]>();
  for (const [id, s] of entries) {
    const key = `${s.kind}\0${id}`;
    map.set(key, [...(map.get(key) ?? []), s]);
  }
  return map;
}

/**
 * `statuses`: the latest status of every target and kind; `sealed`: what sealed targets last said
 * before they were sealed (a sealed cluster keeps its replication identity, it only cannot say so).
 */
export function secondaryTargets(statuses: readonly LatestStatus[], sealed: readonly LatestStatus[] = []): SecondaryTarget[] {
  const secondaries = byKindAndId(
    [...statuses, ...sealed].flatMap((s) =>
      s.status.mode === 'secondary' && s.status.secondary_id ? [[s.status.secondary_id, s] as [string, LatestStatus]] : [],
    ),
  );
  const primaries = byKindAndId(
    statuses.flatMap((p) => (p.status.mode === 'primary' ? [...new Set(p.status.known_secondaries)].map((id) => [id, p] as [string, LatestStatus]) : [])),
  );
  const links: SecondaryTarget[] = [];
  for (const [key, ps] of primaries) {
    const ss = secondaries.get(key) ?? [];
    const unique = ps.length === 1 && ss.length === 1;
    for (const p of ps) {
      for (const s of ss) {
        if (!unique && (p.status.cluster_id === '' || p.status.cluster_id !== s.status.cluster_id)) continue;
        links.push({ kind: p.kind, primary: p.target, secondaryId: s.status.secondary_id!, secondary: s.target });
      }
    }
  }
  return links;
}

export const secondaryTargetFamily: Family<readonly SecondaryTarget[]> = family<readonly SecondaryTarget[]>({
  name: 'secrets_replication_secondary_target_info',
  help: "The configured cluster (secondary_target) that is the secondary a primary (target) knows as secondary_id (always 1): the secondary's own status names that secondary_id and the primary lists it in known_secondaries (an id more than one configured cluster uses links only clusters that share cluster_id); kept while the secondary answers sealed, as a sealed cluster keeps its identity; from the latest scheduled polls of sys/replication/<kind>/status of every configured cluster.",
  type: 'gauge',
  section: 'secrets',
  labels: ['target', 'kind', 'secondary_id', 'secondary_target'],
  samples: (links) => links.map((l) => ({ labels: { target: l.primary, kind: l.kind, secondary_id: l.secondaryId, secondary_target: l.secondary }, value: 1 })),
});
