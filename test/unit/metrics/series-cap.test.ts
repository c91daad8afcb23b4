import { describe, expect, it } from 'vitest';
import { SeriesCap } from '../../../src/metrics/series-cap.js';
import { warnOnce } from '../../../src/support/warn-once.js';

const capped = (max: number, items: number[], prefer?: (n: number) => boolean) => {
  const cap = new SeriesCap<number>(max, prefer);
  for (const n of items) cap.offer(n);
  return { kept: cap.kept(), dropped: cap.dropped };
};
const odd = (n: number) => n % 2 === 1;

describe('SeriesCap: which items get series of their own', () => {
  it('keeps every item up to the cap, in order', () => {
    expect(capped(5, [1, 2, 3])).toEqual({ kept: [1, 2, 3], dropped: 0 });
  });

  it('keeps the first max items and counts the rest', () => {
    expect(capped(2, [4, 5, 6, 7])).toEqual({ kept: [4, 5], dropped: 2 });
  });

  it('puts preferred items first, each group in the order offered', () => {
    expect(capped(4, [2, 4, 1, 6, 3], odd)).toEqual({ kept: [1, 3, 2, 4], dropped: 1 });
  });

  it('lets a late preferred item take the place of a kept other one', () => {
    expect(capped(2, [2, 4, 6, 1], odd)).toEqual({ kept: [1, 2], dropped: 2 });
  });

  it('drops a preferred item once the cap holds only preferred ones', () => {
    expect(capped(2, [1, 3, 5, 2], odd)).toEqual({ kept: [1, 3], dropped: 2 });
  });

  it('keeps nothing at a cap of 0, counting everything', () => {
    expect(capped(0, [1, 2, 3], odd)).toEqual({ kept: [], dropped: 3 });
  });
});

describe('warnOnce: a cap that bites is reported once', () => {
  it('logs the first report only, with its fields', () => {
    const lines: Array<[object, string]> = [];
    const warn = warnOnce({ warn: (fields, msg) => void lines.push([fields, msg]) }, 'over the cap');
    warn({ dropped: 2 });
    warn({ dropped: 3 });
    expect(lines).toEqual([[{ dropped: 2 }, 'over the cap']]);
  });
});
