import { describe, expect, it } from 'vitest';
import { AnswerMemo } from '../../../src/upstream/answer-memo.js';

/** A decoding's result as a worker hands a gossip pool's lines back: one buffer of its own, filled with `text`. */
const decoded = (text: string) => {
  const bytes = Buffer.allocUnsafeSlow(text.length);
  bytes.write(text);
  return { group: [['x_member_up', { bytes, lines: 1 }]] as Array<[string, { bytes: Uint8Array; lines: number }]>, members: 1 };
};
const bytesOf = (v: ReturnType<typeof decoded>) => v.group[0]![1].bytes;
const digest = (s: string) => Buffer.from(s);

describe("AnswerMemo and a decoding's buffers", () => {
  const pool = 'x'.repeat(100_000);

  it('keeps a new value in shared memory, which the main thread then shares rather than copies', async () => {
    const memo = new AnswerMemo();
    const first = decoded(pool);
    const kept = await memo.decode('members', '', digest('a'), () => Promise.resolve(first));
    expect(kept).toBe(first);
    expect(bytesOf(kept).buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(bytesOf(kept)).toString()).toBe(pool);
  });

  it("gives back at once the buffers of new bytes that decode to the kept value, and keeps the kept one's", async () => {
    const memo = new AnswerMemo();
    const kept = await memo.decode('members', '', digest('a'), () => Promise.resolve(decoded(pool)));
    const again = decoded(pool);
    const bytes = bytesOf(again);
    expect(await memo.decode('members', '', digest('b'), () => Promise.resolve(again))).toBe(kept);
    expect(bytes.buffer.byteLength).toBe(0);
    expect(Buffer.from(bytesOf(kept)).toString()).toBe(pool);
  });

  it('keeps a changed value in memory of its own, the old one left to whoever still holds it', async () => {
    const memo = new AnswerMemo();
    const old = await memo.decode('members', '', digest('a'), () => Promise.resolve(decoded(pool)));
    const changed = 'y'.repeat(100_000);
    const next = await memo.decode('members', '', digest('b'), () => Promise.resolve(decoded(changed)));
    expect(next).not.toBe(old);
    expect(Buffer.from(bytesOf(next)).toString()).toBe(changed);
    expect(Buffer.from(bytesOf(old)).toString()).toBe(pool);
  });
});
