import { describe, expect, it } from 'vitest';
import { IDLE_COLLECT_MS, YOUNG_RELEASE_MS } from '../../../src/support/idle-collect.js';
import { runProbe } from '../../helpers/process.js';

interface AskedGc {
  /** V8's isolate: one per thread. */
  isolate: string;
  /** Since the isolate started. */
  atMs: number;
  kind: string;
}

/**
 * The collections `gc` asked for in vigil's collection thread, which published once and idled
 * (test/fixtures/threads/collection-idle-probe.ts), as V8's `--trace-gc` prints them:
 * `[pid:isolate]  7462 ms: Scavenge 22.5 (33.5) -> 20.0 (51.5) MB, ... testing; `.
 */
async function askedCollections(): Promise<AskedGc[]> {
  const { stdout } = await runProbe('test/fixtures/threads/collection-idle-probe.ts', ['--expose-gc', '--trace-gc']);
  return [...stdout.matchAll(/^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: ([A-Za-z-]+(?: \(reduce\))?) .* testing;/gm)].map((m) => ({
    isolate: m[1]!,
    atMs: Number(m[2]),
    kind: m[3]!,
  }));
}

describe('the collection thread, idle after publishing its changes', () => {
  it('gives its young generation back, the way this V8 gives it back', async () => {
    const asked = await askedCollections();
    // One thread asked (no jobs: no decoding thread started), the collection thread.
    expect(new Set(asked.map((c) => c.isolate)).size).toBe(1);
    if (Number(process.versions.v8.split('.')[0]) >= 13) {
      // V8 13 (Node 24): the last-resort full collection (one or more rounds that reduce memory), a second after.
      expect(asked.length).toBeGreaterThan(0);
      for (const c of asked) expect(c).toMatchObject({ kind: 'Mark-Compact (reduce)', atMs: expect.any(Number) });
      expect(Math.min(...asked.map((c) => c.atMs))).toBeGreaterThanOrEqual(IDLE_COLLECT_MS);
    } else {
      // V8 11 (Node 20): one scavenge, once the thread has allocated nothing for five seconds.
      expect(asked.map((c) => c.kind)).toEqual(['Scavenge']);
      expect(asked[0]!.atMs).toBeGreaterThanOrEqual(YOUNG_RELEASE_MS);
    }
  }, 90_000);
});
