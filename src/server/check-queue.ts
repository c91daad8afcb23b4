/**
 * The password checks waiting for the bcrypt thread, in three lanes by what their address has
 * shown lately, so that a flood of wrong passwords competes with itself and not with the scraper:
 *
 * - `trusted`: the address passed a check lately (and failed none since);
 * - `clean`: nothing known against it (a scraper's first check after a start, a new address);
 * - `suspect`: it failed a check lately.
 *
 * Checks are taken trusted first, then clean, then suspect, oldest first within a lane. The room
 * is bounded; suspect checks may fill only part of it, the rest is kept for the others, and a
 * check that finds the room full displaces the newest check of a lower lane, if any (that one is
 * answered `busy`), else is turned away itself.
 */

export type Lane = 'trusted' | 'clean' | 'suspect';

const LANES: readonly Lane[] = ['trusted', 'clean', 'suspect'];

export interface QueueLimits {
  /** Checks that may wait in all. */
  waiting: number;
  /** Of which at most this many suspect ones. */
  suspect: number;
}

/** Checks that may wait behind the running one: 16 rounds of ~80 ms (cost 10) is a wait Prometheus's scrape timeout absorbs. */
export const CHECK_QUEUE: QueueLimits = { waiting: 16, suspect: 8 };

export class CheckQueue<T> {
  private readonly lanes = new Map<Lane, T[]>(LANES.map((l) => [l, []]));

  constructor(private readonly limits: QueueLimits = CHECK_QUEUE) {}

  get size(): number {
    let n = 0;
    for (const l of this.lanes.values()) n += l.length;
    return n;
  }

  /** Adds `item`; returns what was turned away for it: `item` itself, or a displaced check, or nothing. */
  offer(item: T, lane: Lane): T | undefined {
    const own = this.lanes.get(lane)!;
    if (lane === 'suspect' && own.length >= this.limits.suspect) return item;
    if (this.size < this.limits.waiting) {
      own.push(item);
      return undefined;
    }
    const lower = LANES.slice(LANES.indexOf(lane) + 1)
      .reverse()
      .map((l) => this.lanes.get(l)!)
      .find((l) => l.length > 0);
    if (!lower) return item;
    own.push(item);
    return lower.pop();
  }

  /** The next check to run, or undefined when none waits. */
  take(): T | undefined {
    for (const l of this.lanes.values()) if (l.length > 0) return l.shift();
    return undefined;
  }

  /** Empties the queue, returning what waited. */
  drain(): T[] {
    const all = [...this.lanes.values()].flat();
    for (const l of this.lanes.values()) l.length = 0;
    return all;
  }
}
