/**
 * Team listings as they were sent, kept while the store is unchanged: a client polling every page of
 * every organization asks for the same pages again and again, and encoding one afresh each time
 * takes memory new to the process twice (the JSON's text, then its bytes). On a machine shared with
 * the client that memory is the client's cost too, which a service on a machine of its own is not.
 *
 * Any change to the store (its `version`) forgets every page; so does passing `maxBytes`.
 */
export class PageMemo {
  private readonly pages = new Map<string, Buffer>();
  private version = -1;
  private bytesKept = 0;

  constructor(private readonly maxBytes = 256 * 1024 * 1024) {}

  /** The page `key` at the store's `version`: kept bytes, or `render()`'s JSON, encoded and kept. */
  bytes(version: number, key: string, render: () => unknown): Buffer {
    if (version !== this.version) this.forget(version);
    const kept = this.pages.get(key);
    if (kept) return kept;
    const bytes = Buffer.from(JSON.stringify(render()));
    if (this.bytesKept + bytes.length > this.maxBytes) this.forget(version);
    this.pages.set(key, bytes);
    this.bytesKept += bytes.length;
    return bytes;
  }

  /** How many pages are kept (for tests). */
  get size(): number {
    return this.pages.size;
  }

  private forget(version: number): void {
    this.pages.clear();
    this.bytesKept = 0;
    this.version = version;
  }
}
