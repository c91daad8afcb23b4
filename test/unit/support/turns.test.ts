import { describe, expect, it } from 'vitest';
import { Turns } from '../../../src/support/turns.js';

describe('turns of the event loop', () => {
  it('run one taker per turn, so what was queued meanwhile (a scrape) goes between them', async () => {
    const turns = new Turns();
    const order: string[] = [];
    await Promise.all(
      [1, 2, 3].map(async (i) => {
        await turns.take();
        order.push(`step ${i}`);
        setImmediate(() => order.push(`queued during step ${i}`));
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['step 1', 'queued during step 1', 'step 2', 'queued during step 2', 'step 3', 'queued during step 3']);
  });
});
