import fc from 'fast-check';
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine, deflatePiece, gzipMember, joinDeflated } from '../../../src/metrics/gzip-stream.js';

const bytes = fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a));

describe('crc32Combine', () => {
  it("is the CRC-32 of two byte strings laid one after the other, from their own CRCs and the second's length", () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }),
    );
  });

  it('composes for lengths past 2^32 as for small ones (no bit of a length is lost)', () => {
    // Combining is linear: (A·x^8b ⊕ B)·x^8c ⊕ C = A·x^8(b+c) ⊕ (B·x^8c ⊕ C), whatever the CRCs are.
    const crc = fc.integer({ min: 0, max: 2 ** 32 - 1 });
    const big = fc.integer({ min: 2 ** 31 - 10, max: 2 ** 40 });
    fc.assert(
      fc.property(crc, crc, crc, big, big, (a, b, c, lb, lc) => {
        expect(crc32Combine(crc32Combine(a, b, lb), c, lc)).toBe(crc32Combine(a, crc32Combine(b, c, lc), lb + lc));
      }),
    );
  });
});

describe('one gzip member of pieces compressed apart', () => {
  it('holds every piece in order, in one member that a reader of the first member reads whole', () => {
    fc.assert(
      fc.property(fc.array(bytes, { maxLength: 8 }), (pieces) => {
        const gz = Buffer.concat(gzipMember(pieces.map(deflatePiece)));
        const all = Buffer.concat(pieces);
        expect(gunzipSync(gz).equals(all)).toBe(true);
        // One member: the deflate stream after the 10-byte header ends where the 8-byte trailer starts.
        expect(inflateRawSync(gz.subarray(10, gz.length - 8)).equals(all)).toBe(true);
        expect(gz.readUInt32LE(gz.length - 8)).toBe(crc32(all));
        expect(gz.readUInt32LE(gz.length - 4)).toBe(all.length);
      }),
      { numRuns: 200 },
    );
  });

  it('is the same member whether pieces are framed one by one or joined first', () => {
    const pieces = ['# HELP a x\n', 'a 1\n'.repeat(5000), '', 'b{l="é"} 2\n'].map((t) => deflatePiece(Buffer.from(t)));
    expect(Buffer.concat(gzipMember([joinDeflated(pieces.slice(0, 2)), joinDeflated(pieces.slice(2))])).equals(Buffer.concat(gzipMember(pieces)))).toBe(true);
  });
});
