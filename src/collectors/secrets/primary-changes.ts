import { family, type Family } from '../../metrics/family.js';
import type { ReplicationStatus } from './replication-status.js';

/**
 * Counts, per replication kind, how often a secondary's assigned primary changed between two polls
 * (update-primary, or a failover that repointed it). A counter must be cumulative, so the last seen
 * primary lives in the closure the target's job owns; a cluster that is not a secondary resets it.
 */
export type PrimaryChanges = ReadonlyMap<string, number>;

export const assignedPrimary = (s: ReplicationStatus): string | undefined =>
  s.mode !== 'secondary' ? undefined : s.primary_cluster_addr || s.primaries.find((p) => p.cluster_address)?.cluster_address || undefined;

export function primaryChangeCounter(): (statuses: ReadonlyMap<string, ReplicationStatus>) => PrimaryChanges {
  const last = new Map<string, string>();
  const changes = new Map<string, number>();
  return (statuses) => {
    for (const [kind, status] of statuses) {
      const now = assignedPrimary(status);
      const before = last.get(kind);
      if (status.mode !== 'secondary') last.delete(kind);
      else if (now !== undefined) {
        if (before !== undefined && before !== now) changes.set(kind, (changes.get(kind) ?? 0) + 1);
        last.set(kind, now);
      }
      if (status.mode === 'secondary' && !changes.has(kind)) changes.set(kind, 0);
    }
    return changes;
  };
}

export const primaryChangesFamily: Family<PrimaryChanges> = family<PrimaryChanges>({
  name: 'secrets_replication_primary_changes_total',
  help: "Times a secondary's assigned primary (primary_cluster_addr) changed between two scheduled status polls since vigil loaded its config; present once the cluster was seen as a secondary.",
  type: 'counter',
  section: 'secrets',
  labels: ['target', 'kind'],
  samples: (changes) => [...changes].map(([kind, value]) => ({ labels: { kind }, value })),
});
