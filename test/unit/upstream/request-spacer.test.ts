import { describe, expect, it } from 'vitest';
import { RequestSpacer } from '../../../src/upstream/request-spacer.js';

/** A spacer on a fake clock: `take()` advances the clock by the wait it asked for and records it. */
function fakeSpacer(perSecond: number) {
  let now = 0;
  const waits: number[] = [];
  const spacer = new RequestSpacer({
    perSecond,
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
  });
  return {
    spacer,
    waits,
    advance: (ms: number) => {
      now += ms;
    },
    at: () => now,
  };
}

const signal = new AbortController().signal;

describe('request spacer', () => {
  it('lets the first request through at once, then spaces requests evenly at the configured rate', async () => {
    const f = fakeSpacer(25);
    for (let i = 0; i < 4; i++) await f.spacer.take(signal);
    expect(f.waits).toEqual([40, 40, 40]);
    expect(f.at()).toBe(120);
  });

  it('never lets more than the rate through in any second', async () => {
    const f = fakeSpacer(25);
    const sent: number[] = [];
    for (let i = 0; i < 100; i++) {
      await f.spacer.take(signal);
      sent.push(f.at());
    }
    for (const t of sent) expect(sent.filter((s) => s >= t && s < t + 1000).length).toBeLessThanOrEqual(25);
  });

  it('does not wait after a pause longer than the spacing', async () => {
    const f = fakeSpacer(10);
    await f.spacer.take(signal);
    f.advance(500);
    await f.spacer.take(signal);
    expect(f.waits).toEqual([]);
  });

  it('queues concurrent callers one slot apart instead of letting them burst', async () => {
    const reserved: number[] = [];
    const spacer = new RequestSpacer({
      perSecond: 20,
      now: () => 0,
      sleep: async (ms) => {
        reserved.push(ms);
      },
    });
    await Promise.all([spacer.take(signal), spacer.take(signal), spacer.take(signal)]);
    expect(reserved).toEqual([50, 100]);
  });

  it('slows below a lower advertised x-ratelimit-limit, and keeps its own rate under a higher one', () => {
    const f = fakeSpacer(25);
    f.spacer.observe(200, { 'x-ratelimit-limit': '30' });
    expect(f.spacer.perSecond).toBe(25);
    f.spacer.observe(200, { 'x-ratelimit-limit': '10' });
    expect(f.spacer.perSecond).toBe(9);
    f.spacer.observe(200, { 'x-ratelimit-limit': 'garbage' });
    expect(f.spacer.perSecond).toBe(9);
  });

  it('holds every caller back for the advertised time after a 429', async () => {
    const f = fakeSpacer(25);
    await f.spacer.take(signal);
    f.spacer.observe(429, { 'x-ratelimit-reset': '0.75', 'x-ratelimit-limit': '30' });
    await f.spacer.take(signal);
    expect(f.waits).toEqual([750]);
  });

  it('takes the strictest rate of the targets that share it', () => {
    const spacer = new RequestSpacer({ perSecond: 25 });
    spacer.limitTo(40);
    expect(spacer.perSecond).toBe(25);
    spacer.limitTo(5);
    expect(spacer.perSecond).toBe(5);
  });

  it('stops waiting when its signal aborts', async () => {
    const spacer = new RequestSpacer({ perSecond: 1 });
    await spacer.take(signal);
    const ac = new AbortController();
    const waiting = spacer.take(ac.signal);
    ac.abort();
    await expect(waiting).rejects.toThrow();
  });
});

describe('request spacer, rate changes', () => {
  it('spaces the request after a lower advertised limit by the new rate, not the one it was reserved at', async () => {
    const f = fakeSpacer(25);
    await f.spacer.take(signal);
    f.spacer.observe(200, { 'x-ratelimit-limit': '3' });
    await f.spacer.take(signal);
    await f.spacer.take(signal);
    expect(f.waits.map(Math.round)).toEqual([370, 370]);
  });
});

describe('request spacer against hostile rate-limit headers', () => {
  it.each(['1000000', '999999999', '1e300'])('holds callers back at most 60 s after Retry-After: %s', async (ra) => {
    const f = fakeSpacer(25);
    f.spacer.observe(429, { 'retry-after': ra });
    await f.spacer.take(signal);
    expect(f.waits).toEqual([60_000]);
  });

  it('spaces requests at most a minute apart whatever x-ratelimit-limit says', async () => {
    const f = fakeSpacer(25);
    f.spacer.observe(200, { 'x-ratelimit-limit': '1e-300' });
    await f.spacer.take(signal);
    await f.spacer.take(signal);
    expect(f.waits).toEqual([60_000]);
  });
});
