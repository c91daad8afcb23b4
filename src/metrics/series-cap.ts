/**
 * Which items of an answer get series of their own: at most `max`, those `preferred` first (the ones
 * an operator pages on), then the others, each in the order offered. Items come one at a time, so a
 * listing read page by page never holds more than `max` of them; the rest are only counted.
 */
export class SeriesCap<T> {
  private readonly preferred: T[] = [];
  private readonly others: T[] = [];
  /** Items offered but not kept. */
  dropped = 0;

  constructor(
    private readonly max: number,
    private readonly prefer: (item: T) => boolean = () => false,
  ) {}

  offer(item: T): void {
    const full = this.preferred.length + this.others.length >= this.max;
    if (!this.prefer(item)) {
      if (full) this.dropped++;
      else this.others.push(item);
      return;
    }
    if (full) {
      this.dropped++;
      // A preferred item takes the place of the last other one kept, if any.
      if (this.others.pop() === undefined) return;
    }
    this.preferred.push(item);
  }

  /** The items kept: the preferred ones, then the others. */
  kept(): T[] {
    return [...this.preferred, ...this.others];
  }
}

/** The items of a list that get series: all of them in order under `max`, else those `SeriesCap` keeps; and how many are left out. */
export function capped<T>(items: readonly T[], max: number, prefer?: (item: T) => boolean): { kept: readonly T[]; dropped: number } {
  if (items.length <= max) return { kept: items, dropped: 0 };
  const cap = new SeriesCap<T>(max, prefer);
  for (const x of items) cap.offer(x);
  return { kept: cap.kept(), dropped: cap.dropped };
}
