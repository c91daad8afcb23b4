import { gzip } from 'node:zlib';
import { promisify } from 'node:util';

const gzipAsync = promisify(gzip);

/** How pieces are compressed: one gzip member each. */
export type Compress = (bytes: Buffer) => Promise<Buffer>;
export const gzipMember: Compress = (bytes) => gzipAsync(bytes, { level: 6 });

/** The classic text format (0.0.4) or OpenMetrics 1.0 (without its `# EOF`, which the server adds after the runtime metrics). */
export type ExpositionFormat = 'text' | 'openmetrics';

let nextChunkId = 0;

/** Bytes of the body, encoded once, with their gzip member built once on first demand. */
export class Chunk {
  readonly id = nextChunkId++;
  private gz?: Promise<Buffer>;
  constructor(
    readonly bytes: Buffer,
    readonly series: number,
  ) {}
  gzipped(compress: Compress): Promise<Buffer> {
    this.gz ??= compress(this.bytes);
    return this.gz;
  }
}

/**
 * One /metrics body: the pieces to write in order, built when a batch of changes is committed.
 * Its gzip form is the pieces' gzip members one after the other, which every gzip reader joins.
 */
export class Snapshot {
  private gz?: Promise<Buffer>;
  private decoded?: string;
  /** Body length in bytes. */
  readonly bytes: number;
  constructor(
    private readonly pieces: readonly Chunk[],
    readonly renderedAt: number,
    readonly series: number,
    private readonly compress: Compress = gzipMember,
  ) {
    this.bytes = pieces.reduce((n, p) => n + p.bytes.length, 0);
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
   * The body gzipped: the pieces' gzip members one after the other, joined once per snapshot (a
   * small copy, so a scrape writes one buffer). Only pieces no earlier snapshot held are compressed.
   */
  gzipped(): Promise<Buffer> {
    this.gz ??= Promise.all(this.pieces.map((p) => p.gzipped(this.compress))).then((members) => Buffer.concat(members));
    return this.gz;
  }
}
