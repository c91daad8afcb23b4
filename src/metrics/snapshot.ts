import { createHash } from 'node:crypto';
import { isShared, ownCopy } from '../support/transfer.js';
import { deflatePieceAsync, gzipMember, joinDeflated, type Deflated } from './gzip-stream.js';

/** How pieces are compressed: each into deflate data that joins the others' (`gzip-stream.ts`). */
export type Compress = (bytes: Buffer) => Promise<Deflated>;
export const deflateOnce: Compress = deflatePieceAsync;

/** The classic text format (0.0.4) or OpenMetrics 1.0 (without its `# EOF`, which the server adds after the runtime metrics). */
export type ExpositionFormat = 'text' | 'openmetrics';
export const FORMATS: readonly ExpositionFormat[] = ['text', 'openmetrics'];

let nextChunkId = 0;

const digestOf = (b: Uint8Array) => createHash('sha1').update(b).digest('base64');

/**
 * Bytes of the body, encoded once, compressed once on first demand.
 *
 * Where the body is served from another thread, a chunk's bytes can be moved there (`moveOut`):
 * this side keeps its length, its series and, for a group's lines, a digest to tell whether the
 * next rendering of the group is the same.
 */
export class Chunk {
  readonly id = nextChunkId++;
  readonly length: number;
  private deflate?: Promise<Deflated>;
  private own: Buffer | undefined;
  private digest?: string;
  constructor(
    bytes: Buffer,
    readonly series: number,
    /** Whether later renderings are compared with it (a group's lines; not a run joined from them). */
    private readonly compared = false,
    /**
     * Whether the bytes are another's (a group's lines, which a remembered answer may hand out
     * again): moved to another thread as a copy, never by taking their buffer away.
     */
    private readonly lent = false,
  ) {
    this.own = bytes;
    this.length = bytes.length;
  }
  get bytes(): Buffer {
    if (!this.own) throw new Error(`chunk ${this.id} was moved to another thread`);
    return this.own;
  }
  /** Whether `b` holds the same bytes as this chunk did. */
  sameBytes(b: Buffer): boolean {
    if (b.length !== this.length) return false;
    return this.own ? this.own.equals(b) : this.digest === digestOf(b);
  }
  /**
   * The bytes in a buffer of their own, to move to another thread; this side no longer holds them
   * (a view into a larger buffer, or bytes lent, are copied out, so nothing else loses its bytes).
   * Bytes in shared memory are handed over as they are, and this side keeps them: both threads
   * then hold one copy.
   */
  moveOut(): Uint8Array {
    const b = this.bytes;
    if (isShared(b)) return b;
    if (this.compared) this.digest = digestOf(b);
    this.own = undefined;
    return this.lent ? new Uint8Array(b) : ownCopy(b);
  }
  deflated(compress: Compress): Promise<Deflated> {
    this.deflate ??= compress(this.bytes);
    return this.deflate;
  }
  /** Takes the compression made of these bytes elsewhere (where they were laid out), so none is made here. */
  compressedAs(d: Deflated): this {
    this.deflate = Promise.resolve(d);
    return this;
  }
}

/**
 * One /metrics body: the pieces to write in order, built when a batch of changes is committed.
 * Its compressed form is the pieces' deflate data one after the other, one stream.
 */
export class Snapshot {
  private deflate?: Promise<Deflated>;
  private decoded?: string;
  /** Body length in bytes. */
  readonly bytes: number;
  constructor(
    readonly pieces: readonly Chunk[],
    readonly renderedAt: number,
    readonly series: number,
    private readonly compress: Compress = deflateOnce,
  ) {
    this.bytes = pieces.reduce((n, p) => n + p.length, 0);
  }
  /** One body of this one's pieces, then `next`'s. */
  followedBy(next: Snapshot): Snapshot {
    return new Snapshot([...this.pieces, ...next.pieces], Math.max(this.renderedAt, next.renderedAt), this.series + next.series, this.compress);
  }
  /** The body as buffers to write one after the other (never joined into one copy). */
  buffers(): Buffer[] {
    return this.pieces.map((p) => p.bytes);
  }
  /** The body as text (tests and tools; the server writes `buffers()`). */
  get text(): string {
    this.decoded ??= Buffer.concat(this.buffers()).toString();
    return this.decoded;
  }
  /**
   * The body compressed: the pieces' deflate data joined once per snapshot (a small copy, so a
   * scrape writes one buffer for it), and its CRC combined from theirs. Only pieces no earlier
   * snapshot held are compressed.
   */
  deflated(): Promise<Deflated> {
    this.deflate ??= Promise.all(this.pieces.map((p) => p.deflated(this.compress))).then(joinDeflated);
    return this.deflate;
  }
  /** The body as one gzip member (tests and tools; the server frames `deflated()` with what follows it). */
  async gzipped(): Promise<Buffer> {
    return Buffer.concat(gzipMember([await this.deflated()]));
  }
}
