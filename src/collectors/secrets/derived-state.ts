import type { PartOutcome } from '../../jobs/part.js';
import type { GroupWriter } from '../../metrics/render.js';
import { renderGroup } from '../../metrics/render.js';
import type { ReplicationKind } from './replication-status.js';
import type { ReplicationStatus } from './replication-status.js';
import { ActiveNodeChanges } from './cluster-nodes.js';
import { ClusterAddresses, parseAddress, type Address } from './cluster-addresses.js';
import { replicationSetFamilies, replicationSets } from './replication-sets.js';
import { secondaryTargetFamily, secondaryTargets } from './secondary-targets.js';
import { nodeTlsGroup } from './node-clients.js';
import type { SecretsTarget } from './target.js';
import { WalLagTracker, walLagFamily, type LatestStatus } from './wal-lag.js';

export const WAL_LAG_GROUP = 'secrets_wal_lag';
export const REPLICATION_SETS_GROUP = 'secrets_replication_sets';
export const SECONDARY_TARGETS_GROUP = 'secrets_secondary_targets';
/** Addresses kept parsed: far more than an estate names, and a bound on what answers could add. */
const ADDRESSES_KEPT = 10_000;

/**
 * What the secrets collector derives across its targets, kept across reloads: the latest status of
 * each target and kind (for the WAL lag between a primary and its secondaries, and the replication
 * sets), and the addresses seen, parsed once (the configured ones and the primaries' the answers name).
 */
export class SecretsState {
  readonly latest = new WalLagTracker();
  /** Each cluster's active node and how often it changed: a counter must survive a reload. */
  readonly activeNodes = new ActiveNodeChanges();
  /**
   * What each sealed target last said before it answered sealed: a sealed cluster keeps its
   * replication identity, so its primary's view of it can still be told apart from other causes.
   * Only for the link to its primary; its own series, the WAL lag and the sets forget it.
   */
  private readonly sealed = new Map<string, LatestStatus>();
  private readonly addresses = new Map<string, Address>();
  /** The configured clusters' addresses, indexed once per config: the targets' list is kept until a reload. */
  private configured?: { targets: readonly SecretsTarget[]; index: ClusterAddresses };

  /** One kind's status poll of a target: its status, or what a sealed answer keeps of the last one. */
  record(target: string, kind: ReplicationKind, outcome: PartOutcome): void {
    const key = `${target}/${kind}`;
    const status = outcome.value as ReplicationStatus | undefined;
    const kept = outcome.error?.reason === 'sealed' ? (this.latest.get(target, kind) ?? this.sealed.get(key)) : undefined;
    if (kept) this.sealed.set(key, kept);
    else this.sealed.delete(key);
    this.latest.set(target, kind, status);
  }

  addressOf(url: string): Address {
    let a = this.addresses.get(url);
    if (a === undefined) {
      if (this.addresses.size > ADDRESSES_KEPT) this.addresses.clear();
      this.addresses.set(url, (a = parseAddress(url)));
    }
    return a;
  }

  private configuredAddresses(targets: readonly SecretsTarget[]): ClusterAddresses {
    if (this.configured?.targets !== targets) {
      const clusters = targets.map((t) => ({ target: t.name, address: t.address }));
      this.configured = { targets, index: new ClusterAddresses(clusters, (u) => this.addressOf(u)) };
    }
    return this.configured.index;
  }

  /**
   * Renders the WAL lag and the replication sets of `targets` from their latest statuses: when the
   * body is next laid out, so that the polls of one batch (hundreds of clusters in a collection)
   * render them once, from every status recorded by then.
   */
  publish(targets: readonly SecretsTarget[], store: GroupWriter): void {
    store.replaceLater(WAL_LAG_GROUP, () => renderGroup([walLagFamily], this.latest.pairs(), {}));
    store.replaceLater(SECONDARY_TARGETS_GROUP, () =>
      renderGroup([secondaryTargetFamily], secondaryTargets(this.latest.statuses(), [...this.sealed.values()]), {}),
    );
    store.replaceLater(REPLICATION_SETS_GROUP, () => this.renderSets(targets));
  }

  private renderSets(targets: readonly SecretsTarget[]) {
    const byName = new Map(targets.map((t) => [t.name, t]));
    const members = this.latest.statuses().flatMap((l) => {
      const t = byName.get(l.target);
      return t ? [{ ...l, address: t.address, explicit: t.replication_set?.[l.kind] }] : [];
    });
    return renderGroup(replicationSetFamilies, replicationSets(members, { addresses: this.configuredAddresses(targets), parse: (u) => this.addressOf(u) }), {});
  }

  /**
   * After a reload: statuses of removed targets go, and what they fed is rendered again. The node
   * certificates of a target whose nodes are no longer polled go too: no handshake will replace them.
   */
  settle(targets: readonly SecretsTarget[], store: GroupWriter): void {
    const names = new Set(targets.map((t) => t.name));
    for (const t of targets) if (!t.nodes.enabled) store.removePrefix(nodeTlsGroup(t.name));
    this.latest.forgetTargetsExcept(names);
    this.activeNodes.forgetTargetsExcept(names);
    for (const [k, v] of this.sealed) if (!names.has(v.target)) this.sealed.delete(k);
    this.publish(targets, store);
  }
}
