import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { AnyFamily } from './family.js';
import { header, type RenderedGroup } from './render.js';

const gzipAsync = promisify(gzip);

/** One rendered /metrics body: text built once per change, gzip built once on first demand. */
export class Snapshot {
  private gz?: Promise<Buffer>;
  constructor(
    readonly text: string,
    readonly renderedAt: number,
    readonly series: number,
  ) {}
  gzipped(): Promise<Buffer> {
    this.gz ??= gzipAsync(this.text, { level: 6 });
    return this.gz;
  }
}

/**
 * The one place that holds exported samples. Each collection part swaps its whole group at once, so
 * a scrape sees either all of a target's new samples or all of its old ones, never a mix. The text
 * is rendered once per batch of changes (on the next turn of the event loop), never per scrape.
 */
export class SnapshotStore {
  /** family name → (group key → rendered lines) */
  private readonly byFamily = new Map<string, Map<string, string>>();
  /** group key → families it has lines in */
  private readonly groups = new Map<string, readonly string[]>();
  private current = new Snapshot('', Date.now(), 0);
  private dirty = false;
  private scheduled = false;

  constructor(private readonly families: readonly AnyFamily[]) {
    for (const f of families) this.byFamily.set(f.name, new Map());
  }

  /** Replaces everything a group exported with `group` (an empty group removes it). */
  replace(key: string, group: RenderedGroup): void {
    for (const name of group.keys()) if (!this.byFamily.has(name)) throw new Error(`metric ${name} is not in the catalog`);
    this.remove(key);
    const names: string[] = [];
    for (const [name, lines] of group) {
      this.byFamily.get(name)?.set(key, lines);
      names.push(name);
    }
    if (names.length) this.groups.set(key, names);
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

  /** The latest rendered body; renders first if a change has not been rendered yet. */
  snapshot(): Snapshot {
    if (this.dirty) this.render();
    return this.current;
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
      if (this.dirty) this.render();
    });
  }

  private render(): void {
    const parts: string[] = [];
    let series = 0;
    for (const f of this.families) {
      const groups = this.byFamily.get(f.name);
      if (!groups || groups.size === 0) continue;
      parts.push(header(f));
      for (const lines of groups.values()) {
        parts.push(lines);
        series += countLines(lines);
      }
    }
    this.current = new Snapshot(parts.join(''), Date.now(), series);
    this.dirty = false;
  }
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
