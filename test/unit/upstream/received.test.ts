import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownsItsBuffer } from '../../../src/support/transfer.js';
import { REDACTED } from '../../../src/upstream/redact.js';
import { redactReceived } from '../../../src/upstream/redact-bytes.js';
import { Received } from '../../../src/upstream/received.js';

const SECRET = 'agent-token-1234';
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

/** `text` as the socket might have given it: in chunks of `size` bytes. */
function chunked(text: string, size: number, digest = false): Received {
  const all = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += size) chunks.push(all.subarray(at, at + size));
  return new Received(chunks, all.length, digest ? sha256(all) : undefined);
}

/** `text` as a socket gives it: each read in a buffer of its own, owned by the body. */
function read(text: string, size: number): { body: Received; chunks: Buffer[] } {
  const all = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += size) {
    const c = all.subarray(at, at + size);
    const own = Buffer.allocUnsafeSlow(c.length);
    c.copy(own);
    chunks.push(own);
  }
  return { body: new Received(chunks, all.length, undefined, true), chunks };
}

describe('Received', () => {
  it('joins its chunks once, into a buffer of its own, and hands back a lone chunk as it is', () => {
    const body = chunked('{"Members":[{"Name":"a"},{"Name":"b"}]}', 5);
    const joined = body.bytes();
    expect(joined.toString()).toBe('{"Members":[{"Name":"a"},{"Name":"b"}]}');
    expect(body.bytes()).toBe(joined);
    // A large body's joined bytes fill a buffer of their own: they can be moved to a decoding thread.
    expect(ownsItsBuffer(chunked('x'.repeat(100_000), 16 * 1024).bytes())).toBe(true);
    const lone = Buffer.from('{}');
    expect(Received.of(lone).bytes()).toBe(lone);
  });

  it("gives back a socket's chunks once joined, and keeps the joined bytes and a lone chunk as they are", () => {
    const text = 'y'.repeat(200_000);
    const { body, chunks } = read(text, 65_536);
    const joined = body.bytes();
    expect(joined.toString()).toBe(text);
    for (const c of chunks) expect(c.buffer.byteLength).toBe(0);
    body.release();
    expect(body.bytes()).toBe(joined);
    expect(joined.toString()).toBe(text);
    const lone = read('{"a":1}', 100);
    expect(lone.body.bytes()).toBe(lone.chunks[0]);
    lone.body.release();
    expect(lone.chunks[0]!.toString()).toBe('{"a":1}');
  });

  it("released unread, gives back a socket's chunks and refuses to be read after", () => {
    const { body, chunks } = read('z'.repeat(100_000), 65_536);
    body.release();
    for (const c of chunks) expect(c.buffer.byteLength).toBe(0);
    expect(() => body.bytes()).toThrow('the body was released');
    expect(() => body.includes('z')).toThrow('the body was released');
  });

  it("never gives back bytes that are not the body's own (Received.of)", () => {
    const mine = Buffer.allocUnsafeSlow(100_000).fill(1);
    const body = Received.of(mine);
    body.release();
    expect(mine.length).toBe(100_000);
    const given = new Received([Buffer.allocUnsafeSlow(70_000), Buffer.allocUnsafeSlow(70_000)], 140_000);
    given.bytes();
    given.release();
    expect(given.bytes().length).toBe(140_000);
  });

  it('digests its bytes when no digest came with it, and keeps the one taken as it arrived', () => {
    const text = '{"a":1}'.repeat(100);
    expect(
      chunked(text, 7)
        .digest()
        .equals(sha256(Buffer.from(text))),
    ).toBe(true);
    const given = new Received([Buffer.from(text)], text.length, Buffer.from('given'));
    expect(given.digest().toString()).toBe('given');
  });

  it('finds a needle inside a chunk, across the seam of two, and across many one-byte chunks', () => {
    const text = `{"Name":"${SECRET}","x":"y"}`;
    const start = text.indexOf(SECRET);
    for (const size of [1, 2, 3, start + 4, text.length]) {
      const body = chunked(text, size);
      expect(body.includes(SECRET), `chunks of ${size}`).toBe(true);
      expect(body.includes('agent-token-12345'), `chunks of ${size}`).toBe(false);
      expect(body.includes('\\')).toBe(false);
    }
    // Each chunk boundary inside the needle.
    for (let cut = start + 1; cut < start + SECRET.length; cut++) {
      const all = Buffer.from(text);
      const body = new Received([all.subarray(0, cut), all.subarray(cut)], all.length);
      expect(body.includes(SECRET), `cut at ${cut}`).toBe(true);
    }
  });
});

describe('redactReceived', () => {
  it('hands back a body with no secret and no escape as it is: neither joined nor digested again', () => {
    const body = chunked('{"Members":[{"Name":"a"}]}', 4, true);
    const digest = body.digest();
    expect(redactReceived(body, [SECRET])).toBe(body);
    expect(redactReceived(body, [])).toBe(body);
    expect(body.digest()).toBe(digest);
  });

  it('replaces a secret split between two chunks, and digests what it hands back', () => {
    const text = `{"Members":[{"Name":"${SECRET}"}]}`;
    const body = chunked(text, text.indexOf(SECRET) + 5, true);
    const out = redactReceived(body, [SECRET]);
    expect(out).not.toBe(body);
    expect(out.bytes().toString()).not.toContain(SECRET);
    expect(JSON.parse(out.bytes().toString())).toEqual({ Members: [{ Name: REDACTED }] });
    expect(out.digest().equals(sha256(out.bytes()))).toBe(true);
    expect(out.digest().equals(body.digest())).toBe(false);
  });

  it('replaces a secret hidden behind a JSON escape in a chunked body', () => {
    const out = redactReceived(chunked(`{"Members":[{"Name":"\\u0061gent-token-1234"}]}`, 3), [SECRET]);
    expect(JSON.parse(out.bytes().toString())).toEqual({ Members: [{ Name: REDACTED }] });
  });
});
