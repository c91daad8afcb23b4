import { afterEach, describe, expect, it } from 'vitest';
import { giveBack, giveBackOwned, moveIntoShared } from '../../../src/support/transfer.js';

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

describe('moveIntoShared', () => {
  /** A decoded group as a worker hands it back: views into one buffer of the group's own. */
  const group = (bytes: number) => {
    const all = own(bytes, 0x61);
    const group: Array<[string, { bytes: Uint8Array; lines: number }]> = [
      ['a_up', { bytes: all.subarray(0, bytes - 10), lines: 1 }],
      ['b_up', { bytes: new Uint8Array(all.buffer, bytes - 10, 10), lines: 1 }],
    ];
    return { group, members: 3 };
  };

  it('moves a large buffer its views fill into shared memory, views in place, Buffer or not, and gives the old one back', () => {
    const value = group(100_000);
    const before = value.group[0]![1].bytes;
    expect(moveIntoShared(value, 65_536)).toBe(100_000);
    const [a, b] = value.group.map(([, lines]) => lines) as Array<{ bytes: Uint8Array }> as [{ bytes: Uint8Array }, { bytes: Uint8Array }];
    expect(a.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(b.bytes.buffer).toBe(a.bytes.buffer);
    expect(Buffer.isBuffer(a.bytes)).toBe(true);
    expect(Buffer.isBuffer(b.bytes)).toBe(false);
    expect([a.bytes.byteOffset, a.bytes.byteLength, b.bytes.byteOffset, b.bytes.byteLength]).toEqual([0, 99_990, 99_990, 10]);
    expect(Buffer.from(b.bytes).toString()).toBe('a'.repeat(10));
    expect(before.buffer.byteLength).toBe(0);
  });

  it('leaves a small buffer, a slice of a larger one and a listing of many items as they are', () => {
    const small = group(1_000);
    expect(moveIntoShared(small, 65_536)).toBe(0);
    expect(small.group[0]![1].bytes.buffer).toBeInstanceOf(ArrayBuffer);
    const larger = own(200_000);
    const slice = { bytes: larger.subarray(0, 100_000) };
    expect(moveIntoShared(slice, 65_536)).toBe(0);
    expect(larger.buffer.byteLength).toBe(200_000);
    const listing = { items: Array.from({ length: 100 }, () => ({ bytes: own(70_000) })) };
    expect(moveIntoShared(listing, 65_536)).toBe(0);
    expect(listing.items[0]!.bytes.buffer).toBeInstanceOf(ArrayBuffer);
  });
});

describe('giveBackOwned', () => {
  it('detaches the buffers views in a value fill whole, and nothing they share with others', () => {
    bothWays(() => {
      const whole = own(70_000);
      const larger = own(1_000);
      const value = { group: [['a', { bytes: whole }]], other: { bytes: larger.subarray(0, 10) } };
      giveBackOwned(value);
      expect(whole.length).toBe(0);
      expect(larger.length).toBe(1_000);
    });
  });
});
