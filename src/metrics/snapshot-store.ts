import { ownsItsBuffer } from '../support/transfer.js';
import type { AnyFamily } from './family.js';
import { asBuffer, encodeLines } from './encoded-lines.js';
import { toOpenMetrics } from './openmetrics.js';
import { header, type RenderedGroup } from './render.js';
import { KeysByPrefix } from './keys-by-prefix.js';
import { RUN_BYTES, joinRuns, type Part, type Run, type Runs } from './runs.js';
import { Chunk, FORMATS, Snapshot, deflateOnce, type Compress, type ExpositionFormat } from './snapshot.js';

export { FORMATS, Snapshot, deflateOnce, type Compress, type ExpositionFormat } from './snapshot.js';

/**
 * A family's lines small enough to be joined into runs, copied out of the group's buffer if they
 * are a view into it: kept as a view, they would keep the whole group's bytes (a gossip pool's
 * members) alive after those moved to another thread or were replaced.
 */
function ownBytes(b: Buffer): Buffer {
  return ownsItsBuffer(b) || b.length >= RUN_BYTES || b.buffer.byteLength <= Buffer.poolSize ? b : Buffer.from(b);
}

const NO_RUNS: Runs = { pieces: [], runs: new Map(), series: 0 };

export interface SnapshotStoreOptions {
  /**
   * Lay the body out on the turn after each batch of changes (the default: a scrape then finds it
   * ready), or only when it is read (`snapshot`): for a store whose reader asks at an interval of its
   * own (the collection thread's publisher, every 200 ms), each commit would otherwise lay out the
   * whole body once more, hundreds of times a collection, for one read.
   */
  layOut?: 'after-changes' | 'when-read';
}
/** A format asked for within this long is laid out as soon as a commit changes the body. */
const EAGER_FORMAT_MS = 5 * 60_000;

/**
 * The one place that holds exported samples. Each collection part swaps its whole group at once, so
 * a scrape sees either all of a target's new samples or all of its old ones, never a mix. A group's
 * lines are encoded once (where they were rendered, or when committed) and kept as they were if
 * unchanged; the body is assembled from them once per batch of changes (on the next turn of the
 * event loop), never per scrape.
 *
 * Assembling costs what changed, not the size of the body: each family's groups are laid out into
 * pieces (small ones joined into runs) only when one of them changed, and the body joins the
 * families' pieces with their headers, again reusing every run whose parts did not change.
 */
export class SnapshotStore {
  /** family name → (group key → its lines) */
  private readonly byFamily = new Map<string, Map<string, Chunk>>();
  /** group key → families it has lines in */
  private readonly groups = new Map<string, readonly string[]>();
  /** The keys of `groups`, by prefix. */
  private readonly keysByPrefix = new KeysByPrefix();
  /** Each family's HELP/TYPE lines, per format (the samples are the same in both). */
  private readonly headers: Readonly<Record<ExpositionFormat, ReadonlyMap<string, Chunk>>>;
  /** Each family's samples laid out as pieces, kept until one of its groups changes. */
  private readonly familyRuns = new Map<string, Runs>();
  /** Families changed since the last assembly. */
  private readonly changed = new Set<string>();
  /** The body's runs of the last snapshot in each format, for reuse. */
  private bodyRuns: Record<ExpositionFormat, ReadonlyMap<string, Run>> = { text: new Map(), openmetrics: new Map() };
  private current: Record<ExpositionFormat, Snapshot> = { text: new Snapshot([], Date.now(), 0), openmetrics: new Snapshot([], Date.now(), 0) };
  private scheduled = false;
  private assembledAt = Date.now();
  /** When each format was last asked for (performance.now()), and those not laid out since their families changed. */
  private readonly askedAt: Record<ExpositionFormat, number> = { text: -Infinity, openmetrics: -Infinity };
  private readonly stale = new Set<ExpositionFormat>();
  /** Groups to render when the body is next laid out or read (`replaceLater`), by key. */
  private readonly deferred = new Map<string, () => RenderedGroup>();
  private readonly eager: boolean;

  constructor(
    private readonly families: readonly AnyFamily[],
    private readonly compress: Compress = deflateOnce,
    opts: SnapshotStoreOptions = {},
  ) {
    this.eager = (opts.layOut ?? 'after-changes') === 'after-changes';
    for (const f of families) this.byFamily.set(f.name, new Map());
    const headers = (format: (h: string) => string) => new Map(families.map((f) => [f.name, new Chunk(Buffer.from(format(header(f))), 0)]));
    this.headers = { text: headers((h) => h), openmetrics: headers(toOpenMetrics) };
  }

  /** Replaces everything a group exported with `group` (an empty group removes it). */
  replace(key: string, group: RenderedGroup): void {
    for (const name of group.keys()) if (!this.byFamily.has(name)) throw new Error(`metric ${name} is not in the catalog`);
    // The newest write wins: a group deferred before it must not come back over it.
    this.deferred.delete(key);
    const chunks = new Map<string, Chunk>();
    for (const [name, lines] of group) {
      const before = this.byFamily.get(name)?.get(key);
      const encoded = encodeLines(lines);
      const bytes = ownBytes(asBuffer(encoded.bytes));
      const lent = typeof lines !== 'string' && bytes.buffer === encoded.bytes.buffer;
      // Unchanged lines keep their chunk, and with it the compression already made of them.
      chunks.set(name, before?.sameBytes(bytes) ? before : new Chunk(bytes, encoded.lines, true, lent));
    }
    // In place: a group keeps its position in each family, so unchanged neighbours keep their runs.
    for (const n of this.groups.get(key) ?? []) {
      if (!chunks.has(n) && this.byFamily.get(n)?.delete(key)) this.changed.add(n);
    }
    for (const [name, chunk] of chunks) {
      const family = this.byFamily.get(name);
      if (family?.get(key) === chunk) continue;
      family?.set(key, chunk);
      this.changed.add(name);
    }
    if (chunks.size) {
      if (!this.groups.has(key)) this.keysByPrefix.add(key);
      this.groups.set(key, [...chunks.keys()]);
    } else this.forget(key);
    this.scheduleAssembly();
  }

  replaceLater(key: string, render: () => RenderedGroup): void {
    this.deferred.set(key, render);
    this.scheduleAssembly();
  }

  /**
   * Replaces every group under `prefix` at once: keys in `groups` are replaced, keys in `kept` stay
   * as they are, other keys under the prefix are removed (a part that a run no longer produces must
   * not linger).
   */
  replaceAll(prefix: string, groups: ReadonlyMap<string, RenderedGroup>, kept?: ReadonlySet<string>): void {
    for (const key of this.under(prefix)) if (!groups.has(key) && !kept?.has(key)) this.remove(key);
    for (const [key, g] of groups) this.replace(key, g);
    this.scheduleAssembly();
  }

  /** Removes every group whose key starts with `prefix` (a target that left the config). */
  removePrefix(prefix: string): void {
    for (const key of this.under(prefix)) this.remove(key);
    this.scheduleAssembly();
  }

  keys(): string[] {
    this.renderDeferred();
    return [...this.groups.keys()];
  }

  /** The latest body in a format; assembles both first if a change has not been assembled yet. */
  snapshot(format: ExpositionFormat = 'text'): Snapshot {
    this.askedAt[format] = performance.now();
    this.renderDeferred();
    if (this.changed.size) this.assemble();
    if (this.stale.delete(format)) this.current[format] = this.layOut(format, this.assembledAt);
    return this.current[format];
  }

  /** The keys under `prefix`, of groups and of groups deferred (a few at a time: looked through). */
  private under(prefix: string): string[] {
    const keys = this.keysByPrefix.under(prefix);
    for (const key of this.deferred.keys()) if (key.startsWith(prefix) && !this.groups.has(key)) keys.push(key);
    return keys;
  }

  private remove(key: string): void {
    this.deferred.delete(key);
    const names = this.groups.get(key);
    if (!names) return;
    for (const n of names) if (this.byFamily.get(n)?.delete(key)) this.changed.add(n);
    this.forget(key);
  }

  private forget(key: string): void {
    if (this.groups.delete(key)) this.keysByPrefix.delete(key);
  }

  /** Renders the deferred groups (each from the state as it is now) into the store. */
  private renderDeferred(): void {
    if (!this.deferred.size) return;
    const due = [...this.deferred];
    this.deferred.clear();
    for (const [key, render] of due) this.replace(key, render());
  }

  private scheduleAssembly(): void {
    if (!this.eager || this.scheduled || (!this.changed.size && !this.deferred.size)) return;
    this.scheduled = true;
    setImmediate(() => {
      this.renderDeferred();
      this.scheduled = false;
      if (this.changed.size) this.assemble();
    });
  }

  private assemble(): void {
    for (const name of this.changed) {
      const groups = this.byFamily.get(name);
      const parts = [...(groups ?? [])].map(([key, chunk]) => ({ key, chunk }));
      if (parts.length) this.familyRuns.set(name, joinRuns(parts, this.familyRuns.get(name)?.runs ?? new Map()));
      else this.familyRuns.delete(name);
    }
    this.changed.clear();
    this.assembledAt = Date.now();
    // A format nobody asked for lately is laid out when it is asked for, not at every commit: a
    // Prometheus asks for OpenMetrics only, and laying out both doubled the copies of each commit.
    const recent = performance.now() - EAGER_FORMAT_MS;
    for (const format of FORMATS) {
      if (this.askedAt[format] >= recent) this.current[format] = this.layOut(format, this.assembledAt);
      else this.stale.add(format);
    }
  }

  /** The body in catalog order: each family's header, then its pieces. */
  private layOut(format: ExpositionFormat, now: number): Snapshot {
    const headers = this.headers[format];
    const parts: Part[] = [];
    for (const f of this.families) {
      const laid = this.familyRuns.get(f.name) ?? NO_RUNS;
      if (!laid.pieces.length) continue;
      const head = headers.get(f.name);
      if (head) parts.push({ key: `${f.name}#`, chunk: head });
      for (const p of laid.pieces) parts.push({ key: `${f.name}/${p.key}`, chunk: p.chunk });
    }
    const body = joinRuns(parts, this.bodyRuns[format]);
    this.bodyRuns[format] = body.runs;
    return new Snapshot(
      body.pieces.map((p) => p.chunk),
      now,
      body.series,
      this.compress,
    );
  }
}
