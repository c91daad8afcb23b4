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
