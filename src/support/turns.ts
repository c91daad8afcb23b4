import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Hands out turns of the event loop one at a time, for the CPU-heavy steps of collections
 * (decoding a large answer, checking it, mapping it to samples, committing them). Answers that
 * arrive together would otherwise be worked on back to back in one turn, and a scrape arriving
 * meanwhile would wait for all of them; taking turns, it waits for one step at most.
 */
export class Turns {
  private last: Promise<void> = Promise.resolve();

  /**
   * Resolves in a turn of its own, after every earlier taker's. The step must run synchronously
   * from there (up to its next wait on I/O): that is what the turn covers.
   */
  take(): Promise<void> {
    const turn = this.last.then(() => nextTurn());
    this.last = turn;
    return turn;
  }
}
