import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Alert {
  fingerprint: string;
  state: string;
  startsAt: string;
  resolvedAt: string | null;
  notifications: number;
}
interface Page {
  notifications: Array<{ id: number; receiver: string; status: string; payload: { receiver: string } }>;
  nextCursor: string | null;
}

const dir = tempDir('vigil-api-');
let v: TestDaemon;

beforeAll(async () => {
  v = await startTestDaemon(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n`);
  const send = async (n: Parameters<typeof notification>[0]) => expect((await post(v.url, notification(n))).status).toBe(200);
  await send({ groupKey: 'disk', alerts: [{ fingerprint: 'd1', alertname: 'DiskFull', severity: 'critical', startsAt: '2026-11-20T10:00:00Z' }] });
  await send({ groupKey: 'cpu', receiver: 'pager', alerts: [{ fingerprint: 'c1', alertname: 'CpuHigh', severity: 'warning' }] });
  await send({
    groupKey: 'disk',
    alerts: [
      { fingerprint: 'd1', alertname: 'DiskFull', severity: 'critical', startsAt: '2026-11-20T10:00:00Z', status: 'resolved', endsAt: '2026-11-20T10:20:00Z' },
    ],
  });
  await send({ groupKey: 'mem', alerts: [{ fingerprint: 'm1', alertname: 'MemLow', severity: 'warning' }] });
});
afterAll(async () => {
  await v.close();
});

describe('GET /api/v1/alerts', () => {
  const fps = async (q: string) => (await getJson<{ alerts: Alert[] }>(v.url, `/api/v1/alerts${q}`)).body.alerts.map((a) => a.fingerprint);

  it('lists the current state of each alert, firing first', async () => {
    const { body } = await getJson<{ alerts: Alert[] }>(v.url, '/api/v1/alerts');
    // Equal starts: by fingerprint, descending (the order the list's index is walked in).
    expect(body.alerts.map((a) => [a.fingerprint, a.state])).toEqual([
      ['m1', 'firing'],
      ['c1', 'firing'],
      ['d1', 'resolved'],
    ]);
    expect(body.alerts[2]).toMatchObject({ startsAt: '2026-11-20T10:00:00.000Z', resolvedAt: '2026-11-20T10:20:00.000Z', notifications: 2 });
  });

  it('filters by state, alertname and severity (an empty value is no filter)', async () => {
    expect(await fps('?state=resolved')).toEqual(['d1']);
    expect(await fps('?state=firing&severity=warning')).toEqual(['m1', 'c1']);
    expect(await fps('?alertname=MemLow&severity=')).toEqual(['m1']);
    expect(await fps('?alertname=Nothing')).toEqual([]);
  });

  it('leaves out what is less severe than min_severity, firing and resolved', async () => {
    expect(await fps('?min_severity=critical')).toEqual(['d1']);
    expect(await fps('?min_severity=warning')).toEqual(['m1', 'c1', 'd1']);
  });

  it.each([
    ['?min_severity=none', 'min_severity', 'min_severity: expected one of critical, warning, info'],
    ['?state=pending', 'state', 'state: expected "firing" or "resolved"'],
    ['?state=firing&state=resolved', 'state', 'state: expected "firing" or "resolved"'],
    ['?severity=a&severity=b', 'severity', 'severity: Invalid input: expected string, received array'],
    ['?sevrity=critical', 'sevrity', 'sevrity: unknown parameter'],
  ])('answers 400 naming the parameter for %s', async (q, parameter, error) => {
    expect(await getJson(v.url, `/api/v1/alerts${q}`)).toEqual({ status: 400, body: { error, parameter } });
  });
});

describe('GET /api/v1/alerts/{fingerprint}/timeline', () => {
  it('lists every transition of one alert', async () => {
    const { status, body } = await getJson<{ alert: Alert; transitions: Array<{ state: string; endsAt: string | null }> }>(v.url, '/api/v1/alerts/d1/timeline');
    expect(status).toBe(200);
    expect(body.alert.fingerprint).toBe('d1');
    expect(body.transitions.map((t) => [t.state, t.endsAt])).toEqual([
      ['firing', null],
      ['resolved', '2026-11-20T10:20:00.000Z'],
    ]);
  });

  it('answers 404 for an unknown fingerprint', async () => {
    expect(await getJson(v.url, '/api/v1/alerts/ffff/timeline')).toEqual({ status: 404, body: { error: 'no alert with fingerprint "ffff"' } });
  });
});

describe('GET /api/v1/notifications', () => {
  it('pages the history newest first with an opaque cursor', async () => {
    const first = (await getJson<Page>(v.url, '/api/v1/notifications?limit=3')).body;
    expect(first.notifications.map((n) => n.id)).toEqual([4, 3, 2]);
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = (await getJson<Page>(v.url, `/api/v1/notifications?limit=3&cursor=${first.nextCursor}`)).body;
    expect(second).toMatchObject({ nextCursor: null });
    expect(second.notifications.map((n) => n.id)).toEqual([1]);
  });

  it('keeps the payload as received and names the receiver unescaped', async () => {
    const { body } = await getJson<Page>(v.url, '/api/v1/notifications?receiver=web.hook&limit=1');
    expect(body.notifications[0]).toMatchObject({ receiver: 'web.hook', status: 'firing', payload: { receiver: 'web\\.hook' } });
  });

  it('filters by receiver and time (RFC 3339 or Unix seconds)', async () => {
    const ids = async (q: string) => (await getJson<Page>(v.url, `/api/v1/notifications${q}`)).body.notifications.map((n) => n.id);
    expect(await ids('?receiver=pager')).toEqual([2]);
    const now = Date.now() / 1000;
    expect(await ids(`?since=${now - 600}&until=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([4, 3, 2, 1]);
    expect(await ids(`?until=${now - 600}`)).toEqual([]);
  });

  it.each([
    ['?limit=0', 'limit', 'limit: expected a whole number from 1 to 1000'],
    ['?limit=1001', 'limit', 'limit: expected a whole number from 1 to 1000'],
    ['?limit=ten', 'limit', 'limit: expected a whole number from 1 to 1000'],
    ['?since=yesterday', 'since', 'since: expected an RFC 3339 time or Unix seconds'],
    ['?until=2026-13-45T00:00:00Z', 'until', 'until: expected an RFC 3339 time or Unix seconds'],
    ['?since=2000&until=1000', 'until', 'until: must not be before since'],
    ['?cursor=bm9wZQ', 'cursor', 'cursor: not a cursor this API returned'],
    ['?page=2', 'page', 'page: unknown parameter'],
  ])('answers 400 naming the parameter for %s', async (q, parameter, error) => {
    expect(await getJson(v.url, `/api/v1/notifications${q}`)).toEqual({ status: 400, body: { error, parameter } });
  });
});
