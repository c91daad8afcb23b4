/**
 * Counts by key, for at most `max` keys: a key first seen past the bound is not kept, and what it
 * would have counted goes to `dropped`. Constant work per item, so a listing of any size with
 * keys of any number costs the bound.
 */
export class BoundedCounts<V> {
  private readonly kept = new Map<string, { value: V; count: number }>();
  /** What the keys past the bound would have counted. */
  dropped = 0;

  constructor(private readonly max: number) {}

  /** Adds `n` under `key` (`value` is what the key stands for, kept with its first count). */
  add(key: string, value: V, n = 1): void {
    const e = this.kept.get(key);
    if (e) e.count += n;
    else if (this.kept.size < this.max) this.kept.set(key, { value, count: n });
    else this.dropped += n;
  }

  entries(): Array<{ value: V; count: number }> {
    return [...this.kept.values()];
  }
}
