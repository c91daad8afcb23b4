import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { jumpHash, resolveShard, shardLayout, shardOf, ShardError } from '../../../src/config/sharding.js';
import { secretsShardKeys } from '../../../src/collectors/secrets/shard-keys.js';

const names = (n: number, prefix = 'target') => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example.internal`);

describe('the consistent hash', () => {
  it("is the jump hash of the paper, over the first 64 bits of the name's SHA-256", () => {
    // Expected values from an independent Python translation of the paper's C++ loop (Lamping and
    // Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm", 2014), with hashlib's SHA-256.
    const buckets = [2, 3, 5, 10, 100, 1000];
    expect(buckets.map((n) => jumpHash(1n, n))).toEqual([0, 0, 0, 6, 55, 549]);
    expect(buckets.map((n) => jumpHash(0xdeadbeefn, n))).toEqual([1, 2, 3, 5, 87, 285]);
    expect(buckets.map((n) => jumpHash((1n << 64n) - 1n, n))).toEqual([1, 2, 2, 9, 92, 313]);
    expect(buckets.map((n) => jumpHash(42n, n))).toEqual([1, 2, 2, 2, 43, 571]);
    expect([2, 3, 5, 10].map((n) => shardOf('secrets-east-1', n))).toEqual([1, 1, 1, 5]);
    expect([2, 3, 5, 10].map((n) => shardOf('agent-17', n))).toEqual([0, 2, 2, 2]);
    expect(jumpHash(123456789n, 1)).toBe(0);
  });

  it('moves a key only into the new shard when one is added, about 1/(n+1) of them', () => {
    const keys = names(5000);
    for (let n = 1; n <= 6; n++) {
      let moved = 0;
      for (const k of keys) {
        const [before, after] = [shardOf(k, n), shardOf(k, n + 1)];
        if (before !== after) {
          moved += 1;
          expect(after).toBe(n);
        }
      }
      expect(moved / keys.length).toBeGreaterThan(0.8 / (n + 1));
      expect(moved / keys.length).toBeLessThan(1.2 / (n + 1));
    }
  });

  it('spreads names evenly: each of 3 shards gets a third of 3000, give or take 10%', () => {
    const counts = [0, 0, 0];
    for (const k of names(3000)) counts[shardOf(k, 3)]! += 1;
    for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(100);
  });
});

describe('resolving the shard', () => {
  it('is shard 0 of 1 when nothing says otherwise', () => {
    expect(resolveShard({}, undefined)).toEqual({ ordinal: 0, total: 1 });
  });

  it('takes the ordinal of a StatefulSet pod, the flags over the config', () => {
    expect(resolveShard({ totalShards: 3, pod: 'vigil-2' }, undefined)).toEqual({ ordinal: 2, total: 3 });
    expect(resolveShard({ pod: 'vigil-sharded-10' }, { total_shards: 12, shard: 1 })).toEqual({ ordinal: 10, total: 12 });
    expect(resolveShard({ shard: 1 }, { total_shards: 2 })).toEqual({ ordinal: 1, total: 2 });
    expect(resolveShard({}, { total_shards: 2, shard: 1 })).toEqual({ ordinal: 1, total: 2 });
  });

  it('refuses what it cannot tell, naming the flag or key', () => {
    expect(() => resolveShard({ totalShards: 3 }, undefined)).toThrow(/--total-shards is 3 but no shard is given/);
    expect(() => resolveShard({}, { total_shards: 3 })).toThrow(/sharding.total_shards is 3 but no shard/);
    expect(() => resolveShard({ totalShards: 3, pod: 'vigil-3' }, undefined)).toThrow(/--pod vigil-3: shard 3 is not below --total-shards 3/);
    expect(() => resolveShard({ totalShards: 3, pod: 'vigil' }, undefined)).toThrow(/--pod: "vigil" does not end in an ordinal/);
    expect(() => resolveShard({ shard: 0, pod: 'vigil-0' }, undefined)).toThrow(ShardError);
  });

  it('checks sharding in the config file too', () => {
    expect(() => parseConfig('sharding: { total_shards: 2, shard: 2 }\n', 'vigil.yml', {})).toThrow(/sharding\.shard.*below total_shards/s);
    expect(() => parseConfig('sharding: { total_shards: 0 }\n', 'vigil.yml', {})).toThrow(/sharding\.total_shards/);
  });
});

const estate = (n: number) =>
  parseConfig(
    [
      'secrets:',
      ...names(n, 'secrets').map((s) => `  - { name: ${s}, address: "http://127.0.0.1:1" }`),
      '  - { name: dr-a, address: "http://127.0.0.1:1", replication_set: { dr: east } }',
      '  - { name: dr-b, address: "http://127.0.0.1:1", replication_set: { dr: east, performance: p1 } }',
      '  - { name: perf-c, address: "http://127.0.0.1:1", replication_set: { performance: p1 } }',
      'agents:',
      ...names(n, 'agent').map((s) => `  - { name: ${s}, address: "http://127.0.0.1:1" }`),
      '',
    ].join('\n'),
    'vigil.yml',
    {},
  );

describe('the layout of a config over the shards', () => {
  it('gives each target to exactly one shard, and every replica counts every shard alike', () => {
    const config = estate(40);
    const layouts = [0, 1, 2].map((ordinal) => shardLayout(config, { ordinal, total: 3 }));
    const owned = layouts.flatMap((l) => [...l.owned.secrets, ...l.owned.agents].map((t) => t.name));
    expect(owned.sort()).toEqual([...config.secrets, ...config.agents].map((t) => t.name).sort());
    for (const l of layouts) expect(l.targets).toEqual(layouts[0]!.targets);
    expect(layouts.map((l) => l.owned.secrets.length + l.owned.agents.length)).toEqual(layouts[0]!.targets);
  });

  it('keeps the clusters of a replication set, joined through any set they share, on one shard', () => {
    const config = estate(10);
    const keys = secretsShardKeys(config.secrets);
    expect(new Set(['dr-a', 'dr-b', 'perf-c'].map((n) => keys.get(n))).size).toBe(1);
    for (const total of [2, 3, 5, 7]) {
      const shards = [...Array(total).keys()].map((ordinal) => shardLayout(config, { ordinal, total }).owned.secrets.map((t) => t.name));
      const holder = shards.filter((s) => s.includes('dr-a'));
      expect(holder).toHaveLength(1);
      expect(holder[0]).toEqual(expect.arrayContaining(['dr-a', 'dr-b', 'perf-c']));
    }
  });

  it('leaves the alert sink and the rest to every replica', () => {
    const config = parseConfig(
      'agents: [{ name: a, address: "http://127.0.0.1:1" }]\nalert_sink: { allow_unauthenticated: true, store: { path: x.db } }\n',
      'v.yml',
      {},
    );
    for (const ordinal of [0, 1]) expect(shardLayout(config, { ordinal, total: 2 }).owned.alert_sink).toEqual(config.alert_sink);
  });
});
