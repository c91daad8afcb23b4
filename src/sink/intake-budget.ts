/**
 * What the sink holds of the notifications it has accepted and not yet seen settled by the store:
 * how many, and the bytes of their bodies. A notification holds its place from before its body is
 * read until the store has committed it or failed, so neither the bodies being read nor the parsed
 * notifications waiting for the store can pile up past the bound. The count and the bytes may change
 * on a reload while notifications are held: what is held carries over.
 */
export class IntakeBudget {
  private held = 0;
  private heldBytes = 0;

  constructor(
    public maxCount: number,
    public maxBytes: number,
  ) {}

  /** Notifications and bytes held now. */
  get usage(): { count: number; bytes: number } {
    return { count: this.held, bytes: this.heldBytes };
  }

  /**
   * A place for a notification of at most `bytes`, or undefined when it does not fit. When nothing
   * is held, one always fits whatever its size: a body the byte budget cannot hold (it is never
   * larger than body_limit) is stored alone rather than refused for ever.
   */
  take(bytes: number): Hold | undefined {
    if (this.held >= this.maxCount) return undefined;
    if (this.held > 0 && this.heldBytes + bytes > this.maxBytes) return undefined;
    this.held++;
    this.heldBytes += bytes;
    let size = bytes;
    let released = false;
    return {
      shrink: (to) => {
        if (released || to >= size) return;
        this.heldBytes -= size - to;
        size = to;
      },
      release: () => {
        if (released) return;
        released = true;
        this.held--;
        this.heldBytes -= size;
      },
    };
  }
}

/** A notification's place in the budget. */
export interface Hold {
  /** Once the body is read: its real size, when smaller than what was reserved. */
  shrink(bytes: number): void;
  /** Once the store has settled it (or it was refused): the place is free again. */
  release(): void;
}
