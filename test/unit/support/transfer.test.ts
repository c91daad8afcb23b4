import { afterEach, describe, expect, it } from 'vitest';
import { giveBack } from '../../../src/support/transfer.js';

/** A buffer of `n` bytes of its own (not a slice of Node's small-buffer pool). */
const own = (n: number, fill = 7) => Buffer.allocUnsafeSlow(n).fill(fill);

const transferDescriptor = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'transfer');
afterEach(() => {
  if (transferDescriptor) Object.defineProperty(ArrayBuffer.prototype, 'transfer', transferDescriptor);
});

/** Runs `check` as on Node 20, whose ArrayBuffers have no `transfer`, and as on this Node. */
const bothWays = (check: () => void) => {
  check();
  if (!transferDescriptor) return;
  delete (ArrayBuffer.prototype as { transfer?: unknown }).transfer;
  check();
};

describe('giveBack', () => {
  it('detaches each buffer that its view fills, whether or not ArrayBuffers can transfer', () => {
    bothWays(() => {
      const views = [own(65_536), own(29_696), own(1)];
      giveBack(views);
      for (const v of views) {
        expect(v.buffer.byteLength).toBe(0);
        expect(v.length).toBe(0);
      }
    });
  });

  it("leaves alone what a view shares with others: a slice of a larger buffer, of Node's pool, or shared memory", () => {
    bothWays(() => {
      const larger = own(1_000);
      const slice = larger.subarray(10, 20);
      const pooled = Buffer.from('a small answer');
      expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
      const shared = Buffer.from(new SharedArrayBuffer(64));
      giveBack([slice, pooled, shared]);
      expect(larger.buffer.byteLength).toBe(1_000);
      expect(slice[0]).toBe(7);
      expect(pooled.toString()).toBe('a small answer');
      expect(shared.length).toBe(64);
    });
  });

  it("takes the bytes out of this thread's account at once where ArrayBuffers can transfer (Node 24)", () => {
    if (!transferDescriptor) return void expect(process.versions.node.split('.')[0]).toBe('20');
    const views = Array.from({ length: 512 }, () => own(64 * 1024));
    const before = process.memoryUsage().arrayBuffers;
    giveBack(views);
    expect(before - process.memoryUsage().arrayBuffers).toBeGreaterThanOrEqual(512 * 64 * 1024);
  });
});
