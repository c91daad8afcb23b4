import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { AnyFamily } from './family.js';
import { toOpenMetrics } from './openmetrics.js';
import { header, type RenderedGroup } from './render.js';

const gzipAsync = promisify(gzip);

/** How pieces are compressed: one gzip member each. */
export type Compress = (bytes: Buffer) => Promise<Buffer>;
export const gzipMember: Compress = (bytes) => gzipAsync(bytes, { level: 6 });

/**
 * A piece of the body smaller than this is joined with its neighbours into one run of at least this
 * size; a larger one (a gossip pool's member series, an organization's teams) stands alone. Each
 * piece is one gzip member, compressed once and reused by every snapshot that holds it unchanged.
 */
const RUN_BYTES = 64 * 1024;

let nextChunkId = 0;

/** The classic text format (0.0.4) or OpenMetrics 1.0 (without its `# EOF`, which the server adds after the runtime metrics). */
export type ExpositionFormat = 'text' | 'openmetrics';

/** Bytes of the body, encoded once, with their gzip member built once on first demand. */
class Chunk {
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

/**
 * The one place that holds exported samples. Each collection part swaps its whole group at once, so
 * a scrape sees either all of a target's new samples or all of its old ones, never a mix. A group's
 * lines are encoded once when committed (kept as they were if unchanged); the body is assembled
 * from them once per batch of changes (on the next turn of the event loop), never per scrape, and
 * assembling it copies only the small pieces around the part that changed.
 */
export class SnapshotStore {
  /** family name → (group key → its lines) */
  private readonly byFamily = new Map<string, Map<string, Chunk>>();
  /** group key → families it has lines in */
  private readonly groups = new Map<string, readonly string[]>();
  /** Each family's HELP/TYPE lines, per format (the samples are the same in both). */
  private readonly headers: Readonly<Record<ExpositionFormat, ReadonlyMap<string, Chunk>>>;
  /** The runs of small pieces of the last snapshots, by the ids of what they hold, for reuse. */
  private runs = new Map<string, Chunk>();
  private current: Record<ExpositionFormat, Snapshot> = { text: new Snapshot([], Date.now(), 0), openmetrics: new Snapshot([], Date.now(), 0) };
  private dirty = false;
  private scheduled = false;

  constructor(
    private readonly families: readonly AnyFamily[],
    private readonly compress: Compress = gzipMember,
  ) {
    for (const f of families) this.byFamily.set(f.name, new Map());
    const headers = (format: (h: string) => string) => new Map(families.map((f) => [f.name, new Chunk(Buffer.from(format(header(f))), 0)]));
    this.headers = { text: headers((h) => h), openmetrics: headers(toOpenMetrics) };
  }

  /** Replaces everything a group exported with `group` (an empty group removes it). */
  replace(key: string, group: RenderedGroup): void {
    for (const name of group.keys()) if (!this.byFamily.has(name)) throw new Error(`metric ${name} is not in the catalog`);
    const chunks = new Map<string, Chunk>();
    for (const [name, lines] of group) {
      const before = this.byFamily.get(name)?.get(key);
      const bytes = Buffer.from(lines);
      // Unchanged lines keep their chunk, and with it the gzip member already made of them.
      chunks.set(name, before?.bytes.equals(bytes) ? before : new Chunk(bytes, countLines(lines)));
    }
    this.remove(key);
    for (const [name, chunk] of chunks) this.byFamily.get(name)?.set(key, chunk);
    if (chunks.size) this.groups.set(key, [...chunks.keys()]);
    this.markDirty();
  }

  /**
   * Replaces every group under `prefix` at once: keys in `groups` are replaced, other keys under the
   * prefix are removed (a part that a run no longer produces must not linger).
   */
  replaceAll(prefix: string, groups: ReadonlyMap<string, RenderedGroup>): void {
    for (const key of [...this.groups.keys()]) if (key.startsWith(prefix) && !groups.has(key)) this.remove(key);
    for (const [key, g] of groups) this.replace(key, g);
    this.markDirty();
  }

  /** Removes every group whose key starts with `prefix` (a target that left the config). */
  removePrefix(prefix: string): void {
    for (const key of [...this.groups.keys()]) if (key.startsWith(prefix)) this.remove(key);
    this.markDirty();
  }

  keys(): string[] {
    return [...this.groups.keys()];
  }

  /** The latest body in a format; assembles both first if a change has not been assembled yet. */
  snapshot(format: ExpositionFormat = 'text'): Snapshot {
    if (this.dirty) this.assemble();
    return this.current[format];
  }

  private remove(key: string): void {
    const names = this.groups.get(key);
    if (!names) return;
    for (const n of names) this.byFamily.get(n)?.delete(key);
    this.groups.delete(key);
    this.dirty = true;
  }

  private markDirty(): void {
    this.dirty = true;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.dirty) this.assemble();
    });
  }

  private assemble(): void {
    const runs = new Map<string, Chunk>();
    const now = Date.now();
    this.current = { text: this.layOut('text', runs, now), openmetrics: this.layOut('openmetrics', runs, now) };
    this.runs = runs;
    this.dirty = false;
  }

  /** Lays out the pieces in catalog order: large chunks alone, small ones joined into runs. */
  private layOut(format: ExpositionFormat, runs: Map<string, Chunk>, now: number): Snapshot {
    const pieces: Chunk[] = [];
    let run: Chunk[] = [];
    let runBytes = 0;
    let series = 0;
    const closeRun = () => {
      if (!run.length) return;
      const id = run.map((c) => c.id).join(',');
      const joined = run.length === 1 ? run[0]! : (this.runs.get(id) ?? new Chunk(Buffer.concat(run.map((c) => c.bytes)), 0));
      runs.set(id, joined);
      pieces.push(joined);
      run = [];
      runBytes = 0;
    };
    const add = (c: Chunk) => {
      series += c.series;
      if (c.bytes.length >= RUN_BYTES) {
        closeRun();
        pieces.push(c);
        return;
      }
      run.push(c);
      runBytes += c.bytes.length;
      if (runBytes >= RUN_BYTES) closeRun();
    };
    for (const f of this.families) {
      const groups = this.byFamily.get(f.name);
      if (!groups?.size) continue;
      const head = this.headers[format].get(f.name);
      if (head) add(head);
      for (const c of groups.values()) add(c);
    }
    closeRun();
    return new Snapshot(pieces, now, series, this.compress);
  }
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
