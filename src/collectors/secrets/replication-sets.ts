import type { ReplicationKind } from './replication-status.js';
import { family, type Family } from '../../metrics/family.js';
import type { ReplicationStatus } from './replication-status.js';
import { ClusterAddresses, parseAddress, type Address } from './cluster-addresses.js';

/**
 * Which configured clusters form one replication set (per kind), derived from their own answers,
 * with an explicit config name to join clusters the answers do not link:
 *
 * - the same `cluster_id`: the service gives a replication set one id, shared by the primary and
 *   its secondaries, kept by a demoted primary and by a promoted secondary (so an old primary that
 *   was not demoted and the promoted secondary share it: the split brain this exists to catch);
 *   re-enabling a primary gets a new id, which is when the explicit name is needed;
 * - a primary listing a secondary's `secondary_id` in `known_secondaries`;
 * - a secondary listing a primary's `api_address` that is one configured target's address (its
 *   path prefix included when the answer has one; an address several targets share links none), or
 *   two secondaries listing the same address of no configured target.
 *
 * Derived from answers first because they change with failovers and config would go stale; the
 * explicit name (`replication_set.<kind>` on a target) joins what they cannot link. Pure.
 */
export interface SetMember {
  target: string;
  kind: ReplicationKind;
  status: ReplicationStatus;
  /** The target's configured address, which secondaries' `primaries[].api_address` may name. */
  address: string;
  /** `replication_set.<kind>` of the target, if set. */
  explicit?: string | undefined;
}

export interface ReplicationSet {
  kind: ReplicationKind;
  name: string;
  members: readonly SetMember[];
  primaries: readonly string[];
}

function union(parent: number[], a: number, b: number): void {
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  parent[find(a)] = find(b);
}

/** Links members that belong together by one shared key (an id, a name, an address). */
function linkBy(members: readonly SetMember[], parent: number[], keys: (m: SetMember) => Iterable<string>): void {
  const first = new Map<string, number>();
  members.forEach((m, i) => {
    for (const k of keys(m)) {
      const j = first.get(k);
      if (j === undefined) first.set(k, i);
      else union(parent, i, j);
    }
  });
}

/**
 * Links a secondary to the one configured primary that lists its `secondary_id`. Ids are names an
 * operator picked ("dr", "secondary-1"): when two primaries list the same one, it proves nothing.
 */
function linkKnownSecondaries(members: readonly SetMember[], parent: number[]): void {
  // Each id's primaries, found once: the sets are derived again after every poll's commit
  const knowing = new Map<string, Set<number>>();
  members.forEach((p, j) => {
    if (p.status.mode !== 'primary') return;
    for (const id of p.status.known_secondaries) knowing.set(id, (knowing.get(id) ?? new Set()).add(j));
  });
  members.forEach((s, i) => {
    const id = s.status.mode === 'secondary' ? s.status.secondary_id : undefined;
    const primaries = id ? knowing.get(id) : undefined;
    if (primaries?.size === 1) union(parent, i, [...primaries][0]!);
  });
}

function setName(members: readonly SetMember[]): string {
  const explicit = [...new Set(members.flatMap((m) => (m.explicit ? [m.explicit] : [])))].sort();
  if (explicit.length) return explicit.join('+');
  const ids = (ms: readonly SetMember[]) =>
    ms
      .map((m) => m.status.cluster_id)
      .filter((id) => id !== '')
      .sort();
  return ids(members.filter((m) => m.status.mode === 'primary'))[0] ?? ids(members)[0] ?? [...members.map((m) => m.target)].sort()[0]!;
}

/**
 * What links a member by address: a primary is the configured cluster it is; a secondary links to
 * each cluster its answer names as a primary (or, for an address of no configured cluster, to the
 * other secondaries naming it). A primary's own address links nothing by itself: clusters behind one
 * proxy share its scheme, host and port.
 */
function addressKeys(m: SetMember, addresses: ClusterAddresses, parse: (url: string) => Address): string[] {
  if (m.status.mode !== 'secondary') return [`cluster:${m.target}`];
  return m.status.primaries.flatMap((p) => {
    if (!p.api_address) return [];
    const a = parse(p.api_address);
    const named = addresses.resolve(a);
    if (named === 'shared') return [];
    return [named ? `cluster:${named.target}` : `address:${a.full}`];
  });
}

export interface SetOptions {
  /** Every configured cluster's address (default: the members'): an address two of them share names neither. */
  addresses?: ClusterAddresses;
  /**
   * May remember what it parsed: the sets are derived after every poll's commit, and parsing every
   * address again each time grew with the square of the estate.
   */
  parse?: (url: string) => Address;
}

export function replicationSets(all: readonly SetMember[], opts: SetOptions = {}): ReplicationSet[] {
  const parse = opts.parse ?? parseAddress;
  const addresses = opts.addresses ?? new ClusterAddresses(new Map(all.map((m) => [m.target, m])).values(), parse);
  const sets: ReplicationSet[] = [];
  for (const kind of ['performance', 'dr'] as const) {
    const members = all.filter((m) => m.kind === kind && (m.status.mode === 'primary' || m.status.mode === 'secondary'));
    const parent = members.map((_, i) => i);
    linkBy(members, parent, (m) => (m.explicit ? [`explicit:${m.explicit}`] : []));
    linkBy(members, parent, (m) => (m.status.cluster_id ? [`id:${m.status.cluster_id}`] : []));
    linkKnownSecondaries(members, parent);
    linkBy(members, parent, (m) => addressKeys(m, addresses, parse));
    const groups = new Map<number, SetMember[]>();
    const root = (i: number): number => (parent[i] === i ? i : root(parent[i]!));
    members.forEach((m, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), m]));
    for (const ms of groups.values()) {
      sets.push({
        kind,
        name: setName(ms),
        members: ms,
        primaries: ms
          .filter((m) => m.status.mode === 'primary')
          .map((m) => m.target)
          .sort(),
      });
    }
  }
  return sets;
}

const FROM_POLLS = 'from the latest scheduled polls of sys/replication/<kind>/status of every configured cluster';

export const replicationSetFamilies: readonly Family<readonly ReplicationSet[]>[] = [
  family<readonly ReplicationSet[]>({
    name: 'secrets_replication_set_primaries',
    help: `Configured clusters reporting themselves primary in one replication set (more than 1 can lose data); sets are linked by cluster_id, known secondaries, primaries' api_address, or replication_set in the config; ${FROM_POLLS}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['kind', 'replication_set'],
    samples: (sets) => sets.map((s) => ({ labels: { kind: s.kind, replication_set: s.name }, value: s.primaries.length })),
  }),
  family<readonly ReplicationSet[]>({
    name: 'secrets_replication_set_member_info',
    help: `Membership of each configured cluster in a replication set, with its mode (always 1); ${FROM_POLLS}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['kind', 'replication_set', 'target', 'mode'],
    samples: (sets) =>
      sets.flatMap((s) => s.members.map((m) => ({ labels: { kind: s.kind, replication_set: s.name, target: m.target, mode: m.status.mode }, value: 1 }))),
  }),
  family<readonly ReplicationSet[]>({
    name: 'secrets_replication_secondary_primary_watched',
    help: `1 when a secondary's replication set holds a configured cluster that reports itself primary, 0 when its primary is none of the configured clusters; ${FROM_POLLS}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'kind'],
    samples: (sets) =>
      sets.flatMap((s) =>
        s.members
          .filter((m) => m.status.mode === 'secondary')
          .map((m) => ({ labels: { target: m.target, kind: s.kind }, value: s.primaries.length > 0 ? 1 : 0 })),
      ),
  }),
];
