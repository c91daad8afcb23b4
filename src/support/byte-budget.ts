/** Bytes held under a `ByteBudget` until released; `resize` charges what turned out to be held. */
export interface Permit {
  /** Charge `bytes` instead of what was taken (the size read, where the taker guessed). Never waits. */
  resize(bytes: number): void;
  /** Gives the bytes back and lets waiters in. A second call does nothing. */
  release(): void;
}

interface Waiter {
  readonly bytes: number;
  readonly admit: () => void;
}

/**
 * At most `limit` bytes held at once by whoever takes them, admitted first come first served: a
 * taker waits until its bytes fit beside those held. A taker of more than the whole limit is let in
 * alone, once nothing else is held, so no size waits for ever. A permit resized past its share never
 * waits (it is already in); the overshoot only keeps the next takers out a little longer.
 *
 * Built for the answers a collection has in flight, from the moment their headers come until they
 * are decoded or known again (`UpstreamClient`, `admit`): at a million series a collection starts
 * every target at once, and without a bound every body read at once, and every body waiting for a
 * decoding thread, was held at once, the peak of a collection's memory (docs/performance.md).
 */
export class ByteBudget {
  private used = 0;
  private readonly queue: Waiter[] = [];
  private most: number;

  constructor(limit: number) {
    if (!(limit > 0)) throw new RangeError(`a byte budget must be positive, not ${limit}`);
    this.most = limit;
  }

  /** The bytes that may be held at once. */
  get limit(): number {
    return this.most;
  }

  /** Lets up to `limit` bytes be held from now on, if that is more than before (never less), and admits the waiters that now fit. */
  raiseTo(limit: number): void {
    if (!(limit > this.most)) return;
    this.most = limit;
    this.admitWaiters();
  }

  /** Bytes held now, by every permit not yet released. */
  get held(): number {
    return this.used;
  }

  /** Takers waiting now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * A permit for `bytes` (at least 0): at once when they fit and nobody waits (no promise, so a
   * taker that waits for nothing is not counted as waiting), else once they fit; rejects with the
   * signal's reason if it aborts first, and then holds nothing.
   */
  take(bytes: number, signal?: AbortSignal): Permit | Promise<Permit> {
    const size = Math.max(0, bytes);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.queue.length === 0 && this.fits(size)) return this.grant(size);
    return new Promise<Permit>((resolve, reject) => {
      const waiter: Waiter = {
        bytes: size,
        admit: () => {
          signal?.removeEventListener('abort', abandon);
          resolve(this.grant(size));
        },
      };
      const abandon = () => {
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
        reject(signal?.reason as Error);
        // the one it stood in front of may fit now
        this.admitWaiters();
      };
      signal?.addEventListener('abort', abandon, { once: true });
      this.queue.push(waiter);
    });
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.most;
  }

  private grant(bytes: number): Permit {
    let charged = bytes;
    let released = false;
    this.used += charged;
    return {
      resize: (next) => {
        if (released) return;
        const size = Math.max(0, next);
        const shrank = size < charged;
        this.used += size - charged;
        charged = size;
        if (shrank) this.admitWaiters();
      },
      release: () => {
        if (released) return;
        released = true;
        this.used -= charged;
        this.admitWaiters();
      },
    };
  }

  private admitWaiters(): void {
    for (let next = this.queue[0]; next && this.fits(next.bytes); next = this.queue[0]) {
      this.queue.shift();
      next.admit();
    }
  }
}
