import { afterAll, describe, expect, it } from 'vitest';
import type { TASKS } from '../../../src/collectors/decoding.js';
import { OffloadPool, type SizedLimits } from '../../../src/offload/pool.js';
import { transferable } from '../../../src/support/transfer.js';
import { gossipPoolBody } from '../../helpers/gossip-pool.js';

/**
 * A decoding thread's old generation has a limit (`decodingOldGenerationMb`): a thread is replaced
 * when a larger answer needs a higher one, even where its young generation would do, and a thread
 * that runs out of it fails that task alone, the pool starting another for the next.
 */
const DECODING = new URL('../../../src/collectors/decoding.ts', import.meta.url).href;
const pools: OffloadPool<typeof TASKS>[] = [];
afterAll(() => Promise.all(pools.map((p) => p.close())));

function pool(limitsFor: (bytes: number) => SizedLimits): OffloadPool<typeof TASKS> {
  const p = new OffloadPool<typeof TASKS>({ base: DECODING, name: 'decoding-worker', limitsFor }, 1);
  pools.push(p);
  return p;
}

const poll = (p: OffloadPool<typeof TASKS>, members: number, bytes?: number) => {
  const body = gossipPoolBody(members);
  const size = bytes ?? body.length;
  return p.run('agent-members', { body, max: 1_000_000, context: { target: 's1', endpoint: 'members' } }, transferable(body), size);
};

describe("a decoding thread's old generation", () => {
  it('is raised by replacing the thread when a larger answer needs more, the young generation unchanged', async () => {
    const p = pool((bytes) => ({ maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: bytes > 100_000 ? 512 : 256 }));
    expect((await poll(p, 10)).members).toBe(10);
    expect(p.sizedLimits()).toEqual([{ maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 }]);
    expect((await poll(p, 1_000)).members).toBe(1_000);
    expect(p.sizedLimits()).toEqual([{ maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 512 }]);
  }, 60_000);

  it('when run out of, fails that task as an internal error, and the next runs on a new thread', async () => {
    // A limit far below what a pool of 100,000 members needs (48 MiB became enough once the thread no longer loaded undici), claimed small so the pool does not resize.
    const p = pool(() => ({ maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 32 }));
    expect((await poll(p, 10)).members).toBe(10);
    const failed = await poll(p, 100_000, 10).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toMatchObject({ reason: 'internal' });
    expect(String((failed as Error).message)).toMatch(/worker thread failed/);
    expect((await poll(p, 10)).members).toBe(10);
  }, 120_000);
});
