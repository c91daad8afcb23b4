import { family, single, type Family } from './family.js';

/**
 * Which shard this replica polls, as kube-state-metrics says it (`*_shard_ordinal`,
 * `*_total_shards`), and how many configured targets each shard holds: every replica computes the
 * whole layout, so the replicas that are up show the shards of those that are not
 * (VigilShardMissing).
 */
/** What the shard families show of the daemon's shard layout. */
export interface ShardView {
  shard: { ordinal: number; total: number };
  /** Configured targets per shard, index = shard. */
  targets: readonly number[];
}

export const shardFamilies: readonly Family<ShardView>[] = [
  family<ShardView>({
    name: 'vigil_shard_ordinal',
    help: 'The shard of the targets this replica polls, from 0 (--shard, --pod or sharding.shard).',
    type: 'gauge',
    section: 'vigil',
    labels: [],
    samples: single((l) => l.shard.ordinal),
  }),
  family<ShardView>({
    name: 'vigil_total_shards',
    help: 'Replicas the targets are split between (--total-shards or sharding.total_shards; 1 when not sharded).',
    type: 'gauge',
    section: 'vigil',
    labels: [],
    samples: single((l) => l.shard.total),
  }),
  family<ShardView>({
    name: 'vigil_shard_targets',
    help: 'Configured targets the consistent hash gives each shard, as this replica computes it (every shard, not only its own).',
    type: 'gauge',
    section: 'vigil',
    labels: ['shard'],
    samples: (l) => l.targets.map((value, shard) => ({ labels: { shard: String(shard) }, value })),
  }),
];
