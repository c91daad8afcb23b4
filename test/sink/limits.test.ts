import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAlertStore } from '../../src/sink/store/sqlite-store.js';
import { notificationKey } from '../../src/sink/store/alert-store.js';
import { parsePayload } from '../../src/sink/payload-schema.js';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The read API and intake stay bounded whatever senders stored and readers ask (issue 17). */

let dir: string;
let v: TestDaemon | undefined;
const start = async (extra = '') => (v = await startTestDaemon(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n${extra}`));
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const withExtra = (groupKey: string, extra: string) =>
  JSON.stringify(notification({ groupKey, alerts: [{ fingerprint: groupKey }] })).replace(/}$/, `,"extra":${extra}}`);

beforeEach(() => {
  dir = tempDir('vigil-limits-');
});
afterEach(async () => {
  await v?.close();
  v = undefined;
});

describe('GET /api/v1/notifications within max_answer_size', () => {
  it('ends a page once the stored bodies pass the budget and pages on by cursor to every notification', async () => {
    const u = await start('  limits: { max_answer_size: 64KiB }\n');
    for (let i = 0; i < 5; i++) expect((await post(u.url, undefined, { raw: withExtra(`g${i}`, JSON.stringify('p'.repeat(30_000))) })).status).toBe(200);
    const seen: string[] = [];
    let path = '/api/v1/notifications?limit=1000';
    for (let pages = 0; pages < 10; pages++) {
      const res = await fetch(`${u.url}${path}`);
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(text.length).toBeLessThan(64 * 1024 + 4096);
      const body = JSON.parse(text) as { notifications: Array<{ groupKey: string }>; nextCursor: string | null };
      expect(body.notifications.length).toBeGreaterThan(0);
      seen.push(...body.notifications.map((n) => n.groupKey));
      if (!body.nextCursor) break;
      path = `/api/v1/notifications?limit=1000&cursor=${body.nextCursor}`;
    }
    expect(seen).toEqual(['g4', 'g3', 'g2', 'g1', 'g0']);
  });

  it('refuses a limit above 1000', async () => {
    const u = await start();
    expect((await getJson(u.url, '/api/v1/notifications?limit=1001')).status).toBe(400);
  });
});

describe('GET /api/v1/alerts paging', () => {
  it('answers at most `limit` alerts with a cursor to the rest, and 400 for a cursor it never gave', async () => {
    const u = await start();
    const alerts = Array.from({ length: 5 }, (_, i) => ({ fingerprint: `f${i}`, startsAt: `2026-11-20T10:0${i}:00Z` }));
    expect((await post(u.url, notification({ alerts }))).status).toBe(200);
    const first = await getJson<{ alerts: Array<{ fingerprint: string }>; nextCursor: string }>(u.url, '/api/v1/alerts?limit=2');
    expect(first.body.alerts.map((a) => a.fingerprint)).toEqual(['f4', 'f3']);
    const second = await getJson<{ alerts: Array<{ fingerprint: string }>; nextCursor: string | null }>(
      u.url,
      `/api/v1/alerts?limit=3&cursor=${first.body.nextCursor}`,
    );
    expect(second.body).toEqual({ alerts: expect.any(Array), nextCursor: null });
    expect(second.body.alerts.map((a) => a.fingerprint)).toEqual(['f2', 'f1', 'f0']);
    expect(await getJson(u.url, '/api/v1/alerts?cursor=bm9wZQ')).toEqual({
      status: 400,
      body: { error: 'cursor: not a cursor this API returned', parameter: 'cursor' },
    });
    expect((await getJson(u.url, '/api/v1/alerts?limit=5000')).status).toBe(400);
  });
});

describe('JSON nesting', () => {
  it('refuses a notification nested deeper than max_depth with 400, storing nothing', async () => {
    const u = await start();
    const res = await post(u.url, undefined, { raw: withExtra('deep', deep(5000)) });
    expect(res).toEqual({ status: 400, body: { error: 'body nests deeper than 64 levels' } });
    expect((await getJson<{ notifications: unknown[] }>(u.url, '/api/v1/notifications')).body.notifications).toEqual([]);
    expect((await post(u.url, undefined, { raw: withExtra('shallow', deep(50)) })).status).toBe(200);
  });

  it('answers a history page holding an already-stored deep notification, without its payload', async () => {
    const pre = new SqliteAlertStore({ path: join(dir, 'alerts.db') });
    const body = withExtra('poison', deep(5000));
    const parsed = parsePayload(body);
    if (!parsed.ok) throw new Error(parsed.error);
    await pre.record({ key: notificationKey(parsed.payload), receivedAt: Date.now(), payload: parsed.payload, body });
    await pre.close();
    const u = await start();
    expect((await post(u.url, notification({ groupKey: 'fine', alerts: [{ fingerprint: 'x' }] }))).status).toBe(200);
    const page = await getJson<{ notifications: Array<{ groupKey: string; payload: unknown; payloadError?: string }> }>(u.url, '/api/v1/notifications');
    expect(page.status).toBe(200);
    expect(page.body.notifications.map((n) => [n.groupKey, n.payload === null, n.payloadError])).toEqual([
      ['fine', false, undefined],
      ['poison', true, 'stored payload nests deeper than 64 levels'],
    ]);
  });
});

describe('malformed requests are 4xx, not 500', () => {
  it.each([
    ['gzip', 'this is not gzip'],
    ['deflate', 'nor deflate'],
    ['br', 'nor brotli'],
  ])('a corrupt %s body is a 415: compressed bodies are refused unread (Alertmanager never compresses)', async (encoding, raw) => {
    const u = await start();
    const res = await post(u.url, undefined, { raw, headers: { 'content-encoding': encoding } });
    expect(res).toEqual({ status: 415, body: { error: `content encoding "${encoding}" is not accepted` } });
  });

  it('a gzip bomb is refused with 415 without being inflated', async () => {
    const u = await start('  body_limit: 1MiB\n');
    const bomb = gzipSync(Buffer.from(withExtra('bomb', JSON.stringify('0'.repeat(20 * 1024 * 1024)))));
    const res = await fetch(`${u.url}/webhook/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(res.status).toBe(415);
    expect((await fetch(`${u.url}/api/v1/notifications`)).status).toBe(200);
  });

  it('a malformed %-escape in a timeline path is a 400', async () => {
    const u = await start();
    expect((await fetch(`${u.url}/api/v1/alerts/%/timeline`)).status).toBe(400);
  });
});

describe('receiver and severity labels on /metrics', () => {
  const values = (m: Map<string, number>, family: string, label: string) =>
    [...new Set([...m.keys()].filter((k) => k.startsWith(`${family}{`)).map((k) => new RegExp(`${label}="([^"]*)"`).exec(k)?.[1]))].sort();

  it('show at most max_label_values values, the most active, the rest and the over-long summed as "other"', async () => {
    const u = await start('  limits: { max_label_values: 2, max_label_length: 20 }\n');
    const sends: Array<[string, number]> = [
      ['busy', 3],
      ['quiet', 1],
      ['medium', 2],
      ['x'.repeat(21), 5],
      ['rare', 1],
    ];
    let n = 0;
    for (const [receiver, times] of sends) {
      for (let i = 0; i < times; i++)
        expect((await post(u.url, notification({ receiver, groupKey: `g${n++}`, alerts: [{ fingerprint: `f${n}`, severity: `sev${i % 3}` }] }))).status).toBe(
          200,
        );
    }
    const m = await u.metrics();
    expect(values(m, 'vigil_alertsink_notifications_total', 'receiver')).toEqual(['busy', 'medium', 'other']);
    expect(m.get('vigil_alertsink_notifications_total{receiver="other",status="firing"}')).toBe(7);
    expect(m.get('vigil_alertsink_notifications_total{receiver="busy",status="firing"}')).toBe(3);
    expect(m.get('vigil_alertsink_label_values_folded{label="receiver"}')).toBe(3);
    expect(values(m, 'vigil_alertsink_alerts', 'severity')).toEqual(['other', 'sev0', 'sev1']);
    expect(m.get('vigil_alertsink_alerts{severity="other",state="firing"}')).toBe(2);
    expect(m.get('vigil_alertsink_label_values_folded{label="severity"}')).toBe(1);
  });

  it('are not re-rendered per request: a flood of refused requests renders about once a second', async () => {
    const token = join(dir, 'token');
    (await import('node:fs')).writeFileSync(token, 'secret\n');
    const u = await start(`  bearer_token_file: ${token}\n`);
    const replace = u.daemon.store.replace.bind(u.daemon.store);
    let renders = 0;
    u.daemon.store.replace = (group, samples) => {
      if (group === 'alertsink') renders++;
      replace(group, samples);
    };
    const started = performance.now();
    for (let i = 0; i < 100; i++) expect((await post(u.url, notification({ alerts: [{ fingerprint: 'a' }] }))).status).toBe(401);
    const seconds = (performance.now() - started) / 1000;
    // One render per elapsed interval (rounded up), plus the one the last requests are still owed.
    expect(renders).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    expect((await u.metrics()).get('vigil_alertsink_rejected_total{reason="auth"}')).toBe(100);
  });
});
