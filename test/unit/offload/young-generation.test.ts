import { afterAll, describe, expect, it } from 'vitest';
import { collectionOffloadPool, decodingLimits, decodingOldGenerationMb, decodingYoungGenerationMb } from '../../../src/collectors/decoding.js';
import { transferable } from '../../../src/support/transfer.js';
import { gossipPoolBody } from '../../helpers/gossip-pool.js';

/**
 * The decoding threads' young and old generations follow the largest answer they have been given: a thread
 * started for small answers is replaced by a larger one when a large answer comes, the tasks it had
 * in flight answered first, never failed.
 */
const pool = collectionOffloadPool(1);
afterAll(() => pool.close());

const members = gossipPoolBody;
const poll = (body: Buffer) => {
  const bytes = body.length;
  return pool.run('agent-members', { body, max: 100_000, context: { target: 's1', endpoint: 'members' } }, transferable(body), bytes);
};

describe("the decoding threads' young generation", () => {
  it('is 8 MiB for small answers, 8 times the largest answer up to 32 MiB', () => {
    expect(decodingYoungGenerationMb(0)).toBe(8);
    expect(decodingYoungGenerationMb(270_000)).toBe(8);
    // the 1x estate's largest pool, 5,000 members
    expect(decodingYoungGenerationMb(1_900_000)).toBe(16);
    expect(decodingYoungGenerationMb(3_000_000)).toBe(32);
    // the million-series estate's, 20,000 members
    expect(decodingYoungGenerationMb(7_400_000)).toBe(32);
    expect(decodingYoungGenerationMb(500_000_000)).toBe(32);
  });

  it("has an old generation's limit of 256 MiB, past 32 times the largest answer and 64 more, to 4 GiB", () => {
    expect(decodingOldGenerationMb(0)).toBe(256);
    expect(decodingOldGenerationMb(1_900_000)).toBe(256);
    // 32 x 5.9 MiB + 64 = 253 MiB
    expect(decodingOldGenerationMb(6_200_000)).toBe(256);
    expect(decodingOldGenerationMb(7_400_000)).toBe(512);
    // a 16 MiB answer, the largest a target takes by default
    expect(decodingOldGenerationMb(16 * 2 ** 20)).toBe(1024);
    expect(decodingOldGenerationMb(500_000_000)).toBe(4096);
  });

  it('grows with the largest answer, the smaller thread finishing what it had before it ends', async () => {
    const small = members(100);
    expect((await poll(small)).members).toBe(100);
    expect(pool.sizedLimits()).toEqual([decodingLimits(0)]);
    const large = members(20_000);
    // Sized before the answer is moved to the thread (a moved buffer reads as empty here).
    const want = decodingLimits(large.length);
    expect(want.maxYoungGenerationSizeMb).toBeGreaterThan(8);
    // One task in flight on the small thread while the large answer arrives: both answer.
    const [a, b] = await Promise.all([poll(members(5_000)), poll(large)]);
    expect([a.members, b.members]).toEqual([5_000, 20_000]);
    expect(pool.sizedLimits()).toEqual([want]);
    // A smaller answer later keeps the larger thread.
    expect((await poll(members(10))).members).toBe(10);
    expect(pool.sizedLimits()).toEqual([want]);
  });
});
