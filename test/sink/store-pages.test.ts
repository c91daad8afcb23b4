import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { keep } from '../../src/sink/store/sqlite-kept.js';
import { parsePayloadInTurns } from '../../src/sink/payload-schema.js';
import { ALERTS_PER_TURN } from '../../src/sink/store/payload.js';
import { SqliteAlertStore } from '../../src/sink/store/sqlite-store.js';
import type { AlertCursor, Cursor } from '../../src/sink/store/alert-store.js';
import { notification } from '../helpers/alertmanager.js';
import { incoming, T0 } from '../helpers/store-contract.js';
import { tempDir } from '../helpers/temp-dir.js';

let dir: string;
let store: SqliteAlertStore;
beforeEach(() => {
  dir = tempDir('vigil-pages-');
  store = new SqliteAlertStore({ path: join(dir, 'alerts.db') });
});
afterEach(async () => {
  await store.close();
});

describe('notifications pages within a byte budget', () => {
  it('end once the bodies pass maxBytes, never empty, and the cursors reach every notification once', async () => {
    for (let i = 0; i < 7; i++) await store.record(incoming({ groupKey: `g${i}`, alerts: [{ fingerprint: `f${i}` }] }, T0 + i, 40_000));
    const seen: number[] = [];
    const sizes: number[] = [];
    let after: Cursor | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await store.notifications({ limit: 1000, after, maxBytes: 100_000 });
      expect(page.notifications.length).toBeGreaterThan(0);
      seen.push(...page.notifications.map((n) => n.id));
      sizes.push(page.notifications.reduce((n, x) => n + x.body.length, 0));
      after = page.next;
      if (!after) break;
    }
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
    for (const s of sizes) expect(s).toBeLessThanOrEqual(100_000);
  });

  it('holds one notification larger than the budget alone', async () => {
    await store.record(incoming({ groupKey: 'a', alerts: [{ fingerprint: 'a' }] }, T0, 50_000));
    await store.record(incoming({ groupKey: 'b', alerts: [{ fingerprint: 'b' }] }, T0 + 1, 50_000));
    const page = await store.notifications({ limit: 10, maxBytes: 1000 });
    expect(page.notifications.map((n) => n.groupKey)).toEqual(['b']);
    expect(page.next).toBeDefined();
  });
});

describe('alerts pages', () => {
  it('page by limit and cursor in list order (firing first, newest start, fingerprint descending)', async () => {
    const alerts = Array.from({ length: 9 }, (_, i) => ({
      fingerprint: `f${i}`,
      status: i % 3 === 0 ? ('resolved' as const) : ('firing' as const),
      startsAt: `2026-11-20T10:0${i % 4}:00Z`,
    }));
    await store.record(incoming({ groupKey: 'g', alerts }, T0));
    const all = (await store.alerts({ limit: 100 })).alerts.map((a) => a.fingerprint);
    expect(all).toEqual(['f7', 'f2', 'f5', 'f1', 'f8', 'f4', 'f3', 'f6', 'f0']);
    const paged: string[] = [];
    let after: AlertCursor | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await store.alerts({ limit: 2, after });
      expect(page.alerts.length).toBeLessThanOrEqual(2);
      paged.push(...page.alerts.map((a) => a.fingerprint));
      after = page.next;
      if (!after) break;
    }
    expect(paged).toEqual(all);
    const firing: string[] = [];
    after = undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await store.alerts({ limit: 4, after, state: 'firing' });
      firing.push(...page.alerts.map((a) => a.fingerprint));
      after = page.next;
      if (!after) break;
    }
    expect(firing).toEqual(all.filter((f) => !['f0', 'f3', 'f6'].includes(f)));
  });

  it('end early once the stored labels and annotations pass maxBytes', async () => {
    // 5,000 bytes of labels an alert, each value under the fold limit so that all of it is stored.
    const big = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`big${i}`, 'y'.repeat(1000)]));
    const alerts = Array.from({ length: 5 }, (_, i) => ({ fingerprint: `f${i}`, labels: big }));
    await store.record(incoming({ groupKey: 'g', alerts }, T0));
    const page = await store.alerts({ limit: 100, maxBytes: 12_000 });
    expect(page.alerts).toHaveLength(2);
    expect(page.next).toBeDefined();
    expect((await store.alerts({ limit: 100, maxBytes: 100 })).alerts).toHaveLength(1);
  });
});

describe('a notification with many alerts', () => {
  it('is written across turns of the event loop, invisible to readers until committed whole', async () => {
    const n = incoming({ groupKey: 'big', alerts: Array.from({ length: 3 * ALERTS_PER_TURN + 1 }, (_, i) => ({ fingerprint: `f${i}` })) }, T0);
    const small = incoming({ groupKey: 'small', alerts: [{ fingerprint: 's' }] }, T0 + 1);
    const reader = keep(new Database(join(dir, 'alerts.db'), { readonly: true }));
    const count = keep(reader.prepare('SELECT count(*) AS n FROM alerts'));
    const visible = () => (count.get() as { n: number }).n;
    const seen: number[] = [];
    let writing = true;
    const tick = () => {
      if (!writing) return;
      seen.push(visible());
      setImmediate(tick);
    };
    const big = store.record(n);
    setImmediate(tick);
    const other = store.record(small);
    expect(await big).toEqual({ id: 1, duplicate: false });
    expect(await other).toEqual({ id: 2, duplicate: false });
    writing = false;
    reader.close();
    // Some turns ran while it was being written, and none of them saw a part of it.
    const during = seen.filter((c) => c === 0).length;
    expect(during).toBeGreaterThanOrEqual(3);
    expect(seen.every((c) => c === 0 || c >= 3 * ALERTS_PER_TURN + 1)).toBe(true);
    expect((await store.alerts({ limit: 1 })).alerts).toHaveLength(1);
    expect((await store.summary()).alerts).toEqual([{ state: 'firing', severity: '', count: 3 * ALERTS_PER_TURN + 2 }]);
  });

  it('is checked a slice of alerts per turn, every slice read', async () => {
    const n = 3 * ALERTS_PER_TURN + 1;
    let turns = 0;
    const body = JSON.stringify(notification({ groupKey: 'many', alerts: Array.from({ length: n }, (_, i) => ({ fingerprint: `f${i}` })) }));
    const r = await parsePayloadInTurns(body, async () => void turns++);
    // One turn after the JSON, then one before each further slice.
    expect(turns).toBe(4);
    if (!r.ok) throw new Error(r.error);
    expect(r.payload).toMatchObject({ groupKey: 'many', receiver: 'web.hook', status: 'firing', version: '4' });
    expect(r.payload.alerts.map((a) => a.fingerprint)).toEqual(Array.from({ length: n }, (_, i) => `f${i}`));
    expect(r.payload.alerts[n - 1]).toEqual({
      status: 'firing',
      labels: { alertname: 'TestAlert' },
      annotations: { summary: 'test alert' },
      startsAt: Date.parse('2026-11-20T10:00:00Z'),
      endsAt: null,
      generatorURL: 'http://prometheus:9090/graph',
      fingerprint: `f${n - 1}`,
    });
    // A bad alert in the last slice is found, and named, as in the first.
    const bad = (at: number) => JSON.stringify(notification({ alerts: Array.from({ length: n }, (_, i) => ({ fingerprint: i === at ? '' : `f${i}` })) }));
    for (const at of [1, n - 1]) {
      expect(await parsePayloadInTurns(bad(at), async () => undefined)).toEqual({
        ok: false,
        reason: 'schema',
        error: `alerts[${at}].fingerprint: must not be empty`,
        field: `alerts[${at}].fingerprint`,
      });
    }
  });
});
