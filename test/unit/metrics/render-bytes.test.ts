import { describe, expect, it } from 'vitest';
import { linesText } from '../../../src/metrics/encoded-lines.js';
import { family, type Family } from '../../../src/metrics/family.js';
import { renderGroup } from '../../../src/metrics/render.js';
import { renderGroupEncoded } from '../../../src/metrics/render-bytes.js';

interface Pool {
  members: { name: string; status: string }[];
  latency: number[];
}

// A pool's shape: many lines per family (past a block of 512 and the buffer's first 64 KiB), label
// values that need escaping and that are not ASCII, a histogram, and a family with nothing to say.
const families: Family<Pool>[] = [
  family<Pool>({
    name: 'test_member_status',
    help: 'h',
    type: 'gauge',
    labels: ['target', 'member', 'status'],
    section: 'agent',
    samples: (p) => p.members.map((m) => ({ labels: { member: m.name, status: m.status }, value: 1 })),
  }),
  family<Pool>({ name: 'test_nothing', help: 'h', type: 'gauge', labels: ['target'], section: 'agent', samples: () => [] }),
  family<Pool>({
    name: 'test_latency_seconds',
    help: 'h',
    type: 'histogram',
    labels: ['target'],
    bounds: [0.1, 1],
    section: 'agent',
    samples: (p) => [{ buckets: [p.latency.filter((x) => x <= 0.1).length, p.latency.filter((x) => x <= 1).length], sum: 2.5, count: p.latency.length }],
  }),
  family<Pool>({
    name: 'test_members',
    help: 'h',
    type: 'gauge',
    labels: ['target'],
    section: 'agent',
    samples: function* (p) {
      yield { value: p.members.length };
    },
  }),
];

const pool = (n: number): Pool => ({
  members: Array.from({ length: n }, (_, i) => ({ name: i % 7 === 0 ? `nœud-${i} "quoted"\\path\nnext` : `node-${i}`, status: i % 3 ? 'alive' : 'failed' })),
  latency: [0.05, 0.5, 2],
});

describe('renderGroupEncoded', () => {
  it.each([0, 1, 511, 512, 513, 5_000])('gives the lines renderGroup gives, family by family, for a pool of %i', (n) => {
    const context = { target: 'a' };
    const encoded = renderGroupEncoded(families, pool(n), context);
    const text = renderGroup(families, pool(n), context);
    expect(encoded.map(([name]) => name)).toEqual([...text.keys()]);
    for (const [name, lines] of encoded) {
      const expected = text.get(name) ?? '';
      expect(linesText(lines)).toBe(expected);
      expect(lines.lines).toBe(expected.split('\n').length - 1);
    }
  });

  it('lays every family into one buffer of exactly their bytes, so a worker thread can move it whole', () => {
    const encoded = renderGroupEncoded(families, pool(5_000), { target: 'a' });
    const buffers = new Set(encoded.map(([, l]) => l.bytes.buffer));
    expect(buffers.size).toBe(1);
    const total = encoded.reduce((n, [, l]) => n + l.bytes.byteLength, 0);
    expect(total).toBeGreaterThan(64 * 1024);
    expect([...buffers][0]?.byteLength).toBe(total);
  });

  it('refuses a family named twice in one group rather than splitting its lines', () => {
    expect(() => renderGroupEncoded([families[0]!, families[0]!], pool(3), { target: 'a' })).toThrow(/test_member_status: rendered twice/);
  });
});
