import { describe, expect, it } from 'vitest';
import { KeysByPrefix } from '../../../src/metrics/keys-by-prefix.js';

describe('KeysByPrefix', () => {
  // Keys and prefixes of every shape: no slash, one, two, more; prefixes cut anywhere, empty included.
  const keys = [
    'a',
    'a/',
    'a/b',
    'a/b/',
    'a/b/c',
    'a/bc/d',
    'a/b/c/d',
    'ab/c/d',
    'b/a/c',
    'vigil/upstream/agent/x',
    'vigil/upstream/agent/x/tls',
    'x//y',
    '/a/b',
  ];
  const prefixes = ['', 'a', 'a/', 'a/b', 'a/b/', 'a/b/c', 'ab', 'vigil/upstream/', 'vigil/upstream/agent/x', 'x/', 'x//', '/', '/a/', 'zzz/'];
  const naive = (live: ReadonlySet<string>, prefix: string) => [...live].filter((k) => k.startsWith(prefix)).sort();

  it('finds exactly the keys that start with a prefix, as a search of every key does', () => {
    const index = new KeysByPrefix();
    const live = new Set<string>();
    for (const k of keys) {
      index.add(k);
      live.add(k);
    }
    for (const p of prefixes) expect({ p, keys: index.under(p).sort() }).toEqual({ p, keys: naive(live, p) });
  });

  it('forgets deleted keys, and the list it returns may be changed while deleting', () => {
    const index = new KeysByPrefix();
    const live = new Set<string>(keys);
    for (const k of keys) index.add(k);
    for (const k of index.under('a/b/')) {
      index.delete(k);
      live.delete(k);
    }
    index.delete('never/added/key');
    for (const p of prefixes) expect({ p, keys: index.under(p).sort() }).toEqual({ p, keys: naive(live, p) });
    expect(index.under('a/b/')).toEqual([]);
  });
});
