import { describe, expect, it, vi } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { family, single } from '../../../src/metrics/family.js';
import { encodeGroup } from '../../helpers/encode-group.js';
import { header, renderGroup } from '../../../src/metrics/render.js';
import { SnapshotStore, deflateOnce } from '../../../src/metrics/snapshot-store.js';

const g = family<number>({
  name: 'x_value',
  help: 'A "value"\\ with\nnewline.',
  type: 'gauge',
  section: 'vigil',
  labels: ['target'],
  samples: single((n) => n),
});
const c = family<number>({
  name: 'x_events_total',
  help: 'Events.',
  type: 'counter',
  section: 'vigil',
  labels: ['target', 'path'],
  samples: (n) => [{ labels: { path: 'a"b\\c\nd' }, value: n }],
});
const group = (target: string, n: number) => renderGroup([g, c], n, { target });

describe('snapshot store', () => {
  it('renders families in catalog order with one HELP/TYPE each, and escapes help and label values', () => {
    const s = new SnapshotStore([g, c]);
    s.replace('t1', group('t1', 1));
    s.replace('t2', group('t2', 2));
    expect(s.snapshot().text).toBe(
      [
        '# HELP x_value A "value"\\\\ with\\nnewline.',
        '# TYPE x_value gauge',
        'x_value{target="t1"} 1',
        'x_value{target="t2"} 2',
        '# HELP x_events_total Events.',
        '# TYPE x_events_total counter',
        'x_events_total{target="t1",path="a\\"b\\\\c\\nd"} 1',
        'x_events_total{target="t2",path="a\\"b\\\\c\\nd"} 2',
        '',
      ].join('\n'),
    );
    expect(s.snapshot().series).toBe(4);
  });

  it('lays out the format nobody asked for when it is asked for, with every change since', async () => {
    const s = new SnapshotStore([g, c]);
    s.replace('t1', group('t1', 1));
    expect(s.snapshot('text').text).toContain('x_value{target="t1"} 1');
    // commits while only the text format is scraped, each assembled on its own turn
    for (const n of [2, 3]) {
      s.replace('t1', group('t1', n));
      await new Promise((r) => setImmediate(r));
    }
    s.replace('t2', group('t2', 7));
    const om = s.snapshot('openmetrics');
    expect(om.text).toContain('x_value{target="t1"} 3\nx_value{target="t2"} 7\n');
    expect(om.text).toContain('# TYPE x_events counter');
    expect(om.series).toBe(4);
    expect(gunzipSync(await om.gzipped()).toString()).toBe(om.text);
    // and both stay current from then on
    s.replace('t2', group('t2', 8));
    await new Promise((r) => setImmediate(r));
    for (const f of ['text', 'openmetrics'] as const) expect(s.snapshot(f).text).toContain('x_value{target="t2"} 8');
  });

  it('swaps a group whole: no line of the old group survives a replace', () => {
    const s = new SnapshotStore([g, c]);
    s.replace('t1', group('t1', 1));
    s.replace('t1', renderGroup([g], 5, { target: 't1' }));
    expect(s.snapshot().text).toContain('x_value{target="t1"} 5');
    expect(s.snapshot().text).not.toContain('x_events_total');
  });

  it('replaceAll drops keys under the prefix that the new set does not have', () => {
    const s = new SnapshotStore([g]);
    s.replace('job/t1/a', renderGroup([g], 1, { target: 'a' }));
    s.replace('job/t1/b', renderGroup([g], 2, { target: 'b' }));
    s.replace('job/t2/a', renderGroup([g], 3, { target: 'c' }));
    s.replaceAll('job/t1/', new Map([['job/t1/a', renderGroup([g], 9, { target: 'a' })]]));
    expect(s.keys().sort()).toEqual(['job/t1/a', 'job/t2/a']);
  });

  it('replaceAll keeps as they are the keys a run found unchanged', () => {
    const s = new SnapshotStore([g]);
    s.replace('job/t1/a', renderGroup([g], 1, { target: 'a' }));
    s.replace('job/t1/b', renderGroup([g], 2, { target: 'b' }));
    s.replace('job/t1/c', renderGroup([g], 3, { target: 'c' }));
    s.replaceAll('job/t1/', new Map([['job/t1/a', renderGroup([g], 9, { target: 'a' })]]), new Set(['job/t1/b']));
    expect(s.keys().sort()).toEqual(['job/t1/a', 'job/t1/b']);
    expect(s.snapshot().text).toContain('x_value{target="b"} 2\n');
    expect(s.snapshot().text).toContain('x_value{target="a"} 9\n');
  });

  it('keeps the rendered text until something changes, and gzips the same bytes', async () => {
    const s = new SnapshotStore([g, c]);
    s.replace('t1', group('t1', 1));
    const a = s.snapshot();
    expect(s.snapshot()).toBe(a);
    expect(gunzipSync(await a.gzipped()).toString()).toBe(a.text);
    s.removePrefix('t1');
    expect(s.snapshot()).not.toBe(a);
    expect(s.snapshot().text).toBe('');
  });

  describe('a group rendered later, and a store laid out when read', () => {
    it('renders a deferred group once for a batch of calls, from the state as it is when the body is read', () => {
      const s = new SnapshotStore([g, c]);
      let renders = 0;
      let state = 0;
      const render = () => {
        renders += 1;
        return group('derived', state);
      };
      for (state = 1; state <= 50; state++) s.replaceLater('derived', render);
      state = 7;
      expect(renders).toBe(0);
      expect(s.snapshot().text).toContain('x_value{target="derived"} 7');
      expect(renders).toBe(1);
      // nothing deferred since: the body stands, nothing is rendered again
      expect(s.snapshot().text).toContain('x_value{target="derived"} 7');
      expect(renders).toBe(1);
      expect(s.keys()).toEqual(['derived']);
    });

    it('lets the newest write win: a group replaced or removed after it was deferred does not come back', () => {
      const s = new SnapshotStore([g, c], undefined, { layOut: 'when-read' });
      s.replaceLater('t1', () => group('t1', 1));
      s.replace('t1', group('t1', 2));
      s.replaceLater('gone/a', () => group('gone/a', 3));
      s.replace('gone/b', group('gone/b', 4));
      s.removePrefix('gone/');
      s.replaceLater('part/x', () => group('part/x', 5));
      s.replaceAll('part/', new Map([['part/y', group('part/y', 6)]]));
      const text = s.snapshot().text;
      expect(text).toContain('x_value{target="t1"} 2');
      expect(text).not.toContain('x_value{target="t1"} 1');
      expect(text).not.toContain('gone/');
      expect(text).not.toContain('part/x');
      expect(text).toContain('x_value{target="part/y"} 6');
      expect(s.keys().sort()).toEqual(['part/y', 't1']);
    });

    it('renders a deferred group on the turn after, as any change, when laid out after changes', async () => {
      const s = new SnapshotStore([g, c]);
      const body = s.snapshot();
      s.replaceLater('t1', () => group('t1', 3));
      await new Promise((r) => setImmediate(r));
      // laid out already: the same body is served however often it is read
      const after = s.snapshot();
      expect(after).not.toBe(body);
      expect(after.text).toContain('x_value{target="t1"} 3');
      expect(s.snapshot()).toBe(after);
    });

    it('lays the body out once per read, not once per commit, when laid out when read', async () => {
      const commits = async (s: SnapshotStore) => {
        const assemble = vi.spyOn(s as unknown as { assemble: () => void }, 'assemble');
        for (let i = 0; i < 20; i++) {
          s.replace(`t${i}`, group(`t${i}`, i));
          await new Promise((r) => setImmediate(r));
        }
        const during = assemble.mock.calls.length;
        const body = s.snapshot('text');
        return { during, after: assemble.mock.calls.length - during, body };
      };
      const eager = await commits(new SnapshotStore([g, c]));
      expect(eager).toMatchObject({ during: 20, after: 0 });
      const lazy = await commits(new SnapshotStore([g, c], deflateOnce, { layOut: 'when-read' }));
      expect(lazy).toMatchObject({ during: 0, after: 1 });
      // the same body either way
      expect(lazy.body.text).toBe(eager.body.text);
      expect(lazy.body.series).toBe(40);
      expect(gunzipSync(await lazy.body.gzipped()).toString()).toBe(lazy.body.text);
    });
  });

  describe('at scale, a change costs only what changed', () => {
    const many = family<number>({
      name: 'x_member',
      help: 'Many series.',
      type: 'gauge',
      section: 'vigil',
      labels: ['target', 'member'],
      samples: (n) => Array.from({ length: 5000 }, (_, i) => ({ labels: { member: `m${i}` }, value: n })),
    });
    const big = (target: string, n: number) => renderGroup([many], n, { target });

    it('compresses a large group once: when another one changes, only that one is compressed again', async () => {
      const compressed: number[] = [];
      const s = new SnapshotStore([many], (bytes) => {
        compressed.push(bytes.length);
        return deflateOnce(bytes);
      });
      s.replace('a', big('a', 1));
      s.replace('b', big('b', 1));
      await s.snapshot().gzipped();
      compressed.length = 0;
      s.replace('a', big('a', 1));
      s.replace('b', big('b', 2));
      const after = s.snapshot();
      const body = await after.gzipped();
      expect(compressed).toEqual([Buffer.byteLength(big('b', 2).get('x_member') ?? '')]);
      expect(gunzipSync(body).toString()).toBe(after.text);
      expect(after.series).toBe(10_000);
    });

    it('many small groups make the same body as one text, plain and gzip', async () => {
      const s = new SnapshotStore([g, c]);
      const expected = { g: [] as string[], c: [] as string[] };
      for (let i = 0; i < 3000; i++) {
        s.replace(`t${i}`, group(`t${i}`, i));
        expected.g.push(`x_value{target="t${i}"} ${i}\n`);
        expected.c.push(`x_events_total{target="t${i}",path="a\\"b\\\\c\\nd"} ${i}\n`);
      }
      const snap = s.snapshot();
      expect(snap.text).toBe(`${header(g)}${expected.g.join('')}${header(c)}${expected.c.join('')}`);
      expect(snap.buffers().length).toBeGreaterThan(1);
      expect(gunzipSync(await snap.gzipped()).toString()).toBe(snap.text);
      expect(snap.series).toBe(6000);
    });
  });

  describe('assembled family by family, a body is the same as assembled in one piece', () => {
    const families = [
      g,
      c,
      family<number>({ name: 'x_other', help: 'Other.', type: 'gauge', section: 'vigil', labels: ['target'], samples: single((n) => n) }),
    ];
    const groupOf = (t: string, n: number) => renderGroup(n % 3 === 0 ? families.slice(0, 2) : families, n, { target: t });

    it('after many small changes, each assembled in between, plain, OpenMetrics and gzip', async () => {
      // A fixed walk over 400 groups: replaced, changed, emptied of a family, removed
      const walk = (s: SnapshotStore, between: (i: number) => Promise<unknown>) =>
        (async () => {
          for (let i = 0; i < 4_000; i++) {
            const key = `t${(i * 7919) % 400}`;
            const n = (i * 31) % 11;
            if (n === 10) s.removePrefix(key);
            else s.replace(key, groupOf(key, n));
            await between(i);
          }
        })();
      const stepped = new SnapshotStore(families);
      await walk(stepped, (i) => (i % 97 === 0 ? (i % 2 ? stepped.snapshot('openmetrics') : stepped.snapshot()).gzipped() : Promise.resolve()));
      // The same changes, assembled once at the end
      const whole = new SnapshotStore(families);
      await walk(whole, () => Promise.resolve());
      for (const format of ['text', 'openmetrics'] as const) {
        const a = stepped.snapshot(format);
        const b = whole.snapshot(format);
        expect(a.text).toBe(b.text);
        expect(a.series).toBe(b.series);
        expect(gunzipSync(await a.gzipped()).toString()).toBe(b.text);
      }
      expect(stepped.snapshot().text).toContain('# TYPE x_other gauge');
      expect(stepped.snapshot().series).toBeGreaterThan(500);
    });

    it('takes lines encoded elsewhere as they are, the same as text', () => {
      const text = new SnapshotStore(families);
      const encoded = new SnapshotStore(families);
      for (let i = 0; i < 50; i++) {
        text.replace(`t${i}`, groupOf(`t${i}`, i));
        encoded.replace(`t${i}`, new Map(encodeGroup(groupOf(`t${i}`, i))));
      }
      expect(encoded.snapshot().text).toBe(text.snapshot().text);
      expect(encoded.snapshot().series).toBe(text.snapshot().series);
    });

    it('copies and compresses only the runs around a small group that changed', async () => {
      const compressed: number[] = [];
      const s = new SnapshotStore([g, c], (bytes) => {
        compressed.push(bytes.length);
        return deflateOnce(bytes);
      });
      for (let i = 0; i < 5_000; i++) s.replace(`t${i}`, group(`t${i}`, i));
      const before = s.snapshot();
      await before.gzipped();
      compressed.length = 0;
      s.replace('t2500', group('t2500', -1));
      const after = s.snapshot();
      expect(gunzipSync(await after.gzipped()).toString()).toBe(after.text);
      expect(after.text).toContain('x_value{target="t2500"} -1\n');
      // The body is ~500 kB; what changed is two runs of ~64 kB (one per family), not the body
      expect(after.bytes).toBeGreaterThan(400_000);
      expect(compressed.length).toBeLessThanOrEqual(4);
      expect(compressed.reduce((a, b) => a + b, 0)).toBeLessThan(4 * 70 * 1024);
    });
  });

  it('refuses a family that is not in the catalog', () => {
    const s = new SnapshotStore([g, c]);
    s.replace('t', renderGroup([g], 1, { target: 't' }));
    const strict = new SnapshotStore([g]);
    strict.replace('t', renderGroup([g], 1, { target: 't' }));
    expect(() => strict.replace('t', group('t', 2))).toThrow(/not in the catalog/);
    // nothing of the refused group was applied: the old one stands
    expect(strict.snapshot().text).toContain('x_value{target="t"} 1');
  });

  it('refuses a sample missing a declared label', () => {
    expect(() => renderGroup([g], 1, {})).toThrow(/label target has no value/);
  });
});

describe('family declarations follow the exporter naming rules', () => {
  const base = { help: 'h', section: 'vigil' as const, samples: () => [] };
  it.each([
    [{ name: 'x_total', type: 'gauge' as const, labels: [] }, /only counters end in _total/],
    [{ name: 'x_count', type: 'counter' as const, labels: [] }, /only counters end in _total/],
    [{ name: 'x', type: 'gauge' as const, labels: ['instance'] }, /clashes with target labels/],
    [{ name: 'x', type: 'gauge' as const, labels: ['job'] }, /clashes/],
    [{ name: '1x', type: 'gauge' as const, labels: [] }, /invalid name/],
  ])('%o is refused', (def, msg) => {
    expect(() => family({ ...base, ...def })).toThrow(msg);
  });

  it('accepts a reserved label only when the family names it as allowed, and only that one', () => {
    const info = { ...base, name: 'x_info', type: 'gauge' as const, labels: ['region', 'cluster'] };
    expect(() => family({ ...info, reservedLabelsAllowed: ['region', 'cluster'] })).not.toThrow();
    expect(() => family({ ...info, reservedLabelsAllowed: ['region'] })).toThrow(/label cluster clashes/);
  });
});
