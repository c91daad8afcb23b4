import { createHash } from 'node:crypto';
import type { Permit } from '../support/byte-budget.js';
import { giveBack } from '../support/transfer.js';

const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

/**
 * An answer's body as it arrived: the chunks the socket gave, joined into one buffer only when
 * asked (`bytes()`), and their SHA-256 (`digest()`), taken as they came when the reader was asked to.
 * A caller that only needs to know whether the body is the one it saw last (the answer memo) costs
 * no copy of it: at a million series that is 331 MiB a collection that the collection thread no
 * longer allocates outside its heap, where every 64 MiB or so of it forced a collection
 * (docs/performance.md, "A body read only to be known again is not copied").
 */
export class Received {
  private chunks: Buffer[] | undefined;
  private joined: Buffer | undefined;
  private sum: Buffer | undefined;
  /** The secrets (`secretsKey`) this body was searched for and found free of, when it was. */
  cleanOf: string | undefined;
  private released = false;
  /** The share of the answers in flight this body holds until released (`UpstreamClient`, `admit`). */
  private permit: Permit | undefined;

  constructor(
    chunks: Buffer[],
    readonly length: number,
    digest?: Buffer,
    /** Whether the chunks are this body's alone (a socket's reads), so their memory may be given back (`release`). */
    private readonly owned = false,
  ) {
    this.chunks = chunks;
    this.sum = digest;
  }

  /** One buffer of bytes, digested on first ask (the caller's: never given back). */
  static of(bytes: Buffer): Received {
    return new Received([bytes], bytes.length);
  }

  /**
   * The body in one buffer: the chunk itself when there is one, else a copy of them all in a buffer
   * of its own (made once), and then the chunks' memory is given back.
   */
  bytes(): Buffer {
    if (this.joined) return this.joined;
    if (this.released) throw new Error('the body was released');
    const chunks = this.chunks ?? [];
    this.joined = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.length);
    this.chunks = undefined;
    if (this.owned && chunks.length > 1) giveBack(chunks);
    return this.joined;
  }

  /**
   * Done with the body (known again, or decoded): the chunks it owns are given back now, not at the
   * thread's next full collection (`giveBack`). The bytes joined, if any, are the reader's. After
   * this the chunks are gone: `bytes()` throws unless it was joined before.
   */
  release(): void {
    this.released = true;
    this.permit?.release();
    this.permit = undefined;
    if (this.owned && this.chunks) giveBack(this.chunks);
    this.chunks = undefined;
  }

  /**
   * Holds `permit` until released. A body that stands for this one (its redacted copy) takes it on
   * with `passPermitTo`, so the bytes stay counted until the one decoded is done with.
   */
  holding(permit: Permit | undefined): this {
    this.permit = permit;
    return this;
  }

  /** Hands this body's permit to `other`, which releases it in its place. */
  passPermitTo(other: Received): Received {
    if (other !== this) {
      other.holding(this.permit);
      this.permit = undefined;
    }
    return other;
  }

  /** The body's SHA-256: taken as it arrived, or from its bytes now. */
  digest(): Buffer {
    return (this.sum ??= sha256(this.bytes()));
  }

  /** Whether `needle` occurs in the body, also across the seam of two chunks, without joining them. */
  includes(needle: string): boolean {
    if (this.joined) return this.joined.includes(needle);
    if (this.released) throw new Error('the body was released');
    const n = Buffer.from(needle);
    if (n.length === 0) return true;
    // The last n - 1 bytes of what came before: a match across a seam starts in them.
    const keep = n.length - 1;
    let tail: Buffer = Buffer.alloc(0);
    for (const chunk of this.chunks ?? []) {
      if (chunk.includes(n)) return true;
      if (tail.length && Buffer.concat([tail, chunk.subarray(0, keep)]).includes(n)) return true;
      if (chunk.length >= keep) tail = chunk.subarray(chunk.length - keep);
      else {
        const both = Buffer.concat([tail, chunk]);
        tail = both.subarray(Math.max(0, both.length - keep));
      }
    }
    return false;
  }
}
