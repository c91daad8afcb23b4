import { createHash } from 'node:crypto';
import { COLLECTORS } from '../collectors/index.js';
import type { Config } from './schema.js';

/**
 * Where the shard comes from besides the config: `--total-shards`, `--shard`, and `--pod` (a
 * StatefulSet pod's name, whose ordinal is the shard, as kube-state-metrics' auto-sharding takes it).
 */
export interface ShardFlags {
  totalShards?: number;
  shard?: number;
  pod?: string;
}

/** The config's `sharding:` block. */
export interface ShardingConfig {
  total_shards: number;
  shard?: number | undefined;
}

/** Which of `total` shards this replica polls. */
export interface Shard {
  ordinal: number;
  total: number;
}

export class ShardError extends Error {}

const POD_ORDINAL = /-(\d+)$/;

/** The shard this replica polls: flags first, then the config; one shard of one when neither says. */
export function resolveShard(flags: ShardFlags, config: ShardingConfig | undefined): Shard {
  const [total, totalFrom] = flags.totalShards !== undefined ? [flags.totalShards, '--total-shards'] : [config?.total_shards ?? 1, 'sharding.total_shards'];
  const [ordinal, from] = ordinalOf(flags, config);
  if (ordinal === undefined) {
    if (total === 1) return { ordinal: 0, total };
    throw new ShardError(`${totalFrom} is ${total} but no shard is given: set --shard, --pod (a StatefulSet pod's name) or sharding.shard`);
  }
  if (ordinal >= total) {
    throw new ShardError(
      `${from}: shard ${ordinal} is not below ${totalFrom} ${total} (shards are numbered from 0; change the replicas and the shard count together)`,
    );
  }
  return { ordinal, total };
}

function ordinalOf(flags: ShardFlags, config: ShardingConfig | undefined): [number | undefined, string] {
  if (flags.shard !== undefined && flags.pod !== undefined) throw new ShardError('--shard and --pod: give one, not both');
  if (flags.shard !== undefined) return [flags.shard, '--shard'];
  if (flags.pod !== undefined) {
    const m = POD_ORDINAL.exec(flags.pod);
    if (!m) throw new ShardError(`--pod: ${JSON.stringify(flags.pod)} does not end in an ordinal (a StatefulSet's pods are named NAME-0, NAME-1, ...)`);
    return [Number(m[1]), `--pod ${flags.pod}`];
  }
  return [config?.shard, 'sharding.shard'];
}

const MASK64 = (1n << 64n) - 1n;
const JUMP_MULTIPLIER = 2862933555777941757n;

/**
 * Jump consistent hash (Lamping and Veach, 2014): the bucket of `key` among `buckets`. Going from n
 * to n+1 buckets moves only the keys that land in the new one (1/(n+1) of them); none moves between
 * old buckets.
 */
export function jumpHash(key: bigint, buckets: number): number {
  let b = -1;
  let j = 0;
  let k = key & MASK64;
  while (j < buckets) {
    b = j;
    k = (k * JUMP_MULTIPLIER + 1n) & MASK64;
    j = Math.floor((b + 1) * (2 ** 31 / (Number(k >> 33n) + 1)));
  }
  return b;
}

/** The shard of a key: the first 64 bits of its SHA-256, jump-hashed. The same on every replica and version. */
export function shardOf(key: string, total: number): number {
  if (total <= 1) return 0;
  return jumpHash(createHash('sha256').update(key).digest().readBigUInt64BE(0), total);
}

/** The configured targets each shard polls, and the config of this replica's shard. */
export interface ShardLayout {
  shard: Shard;
  /** Configured targets per shard, index = shard. */
  targets: number[];
  /** The config with only this shard's targets. */
  owned: Config;
}

/** Splits a config's targets over the shards; the alert sink and the rest are every replica's. Each collector may shard its targets by a key of its own. */
export function shardLayout(config: Config, shard: Shard): ShardLayout {
  const targets = new Array<number>(shard.total).fill(0);
  const owned: Record<string, unknown> = { ...config };
  for (const c of COLLECTORS) {
    const list = config[c.kind] as ReadonlyArray<{ name: string }>;
    const keys = c.shardKeys?.(list as never);
    owned[c.kind] = list.filter((t) => {
      const s = shardOf(keys?.get(t.name) ?? t.name, shard.total);
      targets[s]! += 1;
      return s === shard.ordinal;
    });
  }
  return { shard, targets, owned: owned as Config };
}
