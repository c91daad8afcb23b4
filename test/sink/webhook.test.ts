import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { keep } from '../../src/sink/store/sqlite-kept.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BROKEN } from '../fixtures/alertmanager/broken.js';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { series } from '../helpers/exposition.js';
import { fixture } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp-dir.js';

let dir: string;
let vigil: TestDaemon | undefined;
const start = async (sinkYaml = '') => {
  vigil = await startTestDaemon(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n${sinkYaml}`);
  return vigil;
};
/** The stored notifications, read with the sink's bearer token (the read API needs it once the webhook has one). */
const stored = async (v: TestDaemon) =>
  (await getJson<{ notifications: Array<Record<string, unknown>> }>(v.url, '/api/v1/notifications', { authorization: 'Bearer s3cr3t-token' })).body
    .notifications;
const rejected = async (v: TestDaemon, reason: string) => (await v.metrics()).get(series('vigil_alertsink_rejected_total', { reason }));

beforeEach(() => {
  dir = tempDir('vigil-sink-');
});
afterEach(async () => {
  await vigil?.close();
  vigil = undefined;
});

describe('POST /webhook/alertmanager', () => {
  it('answers 200 once stored, and counts a second copy as a duplicate', async () => {
    const v = await start();
    const firing = fixture('alertmanager/firing.json');
    expect(await post(v.url, firing)).toEqual({ status: 200, body: { status: 'stored', id: 1 } });
    expect(await post(v.url, firing)).toEqual({ status: 200, body: { status: 'duplicate', id: 1 } });
    expect(await post(v.url, fixture('alertmanager/truncated.json'))).toMatchObject({ status: 200 });
    expect(await stored(v)).toHaveLength(2);
    const m = await v.metrics();
    expect(m.get(series('vigil_alertsink_notifications_total', { receiver: 'web.hook', status: 'firing' }))).toBe(1);
    expect(m.get(series('vigil_alertsink_notifications_total', { receiver: 'web.hook', status: 'resolved' }))).toBe(0);
    expect(m.get(series('vigil_alertsink_duplicates_total', { receiver: 'web.hook' }))).toBe(1);
    expect(m.get(series('vigil_alertsink_truncated_alerts_total', { receiver: 'team-(platform)+oncall' }))).toBe(3);
    expect(m.get(series('vigil_alertsink_alerts', { state: 'firing', severity: 'critical' }))).toBe(1);
    expect(m.get(series('vigil_alertsink_alerts', { state: 'firing', severity: 'warning' }))).toBe(2);
    expect(m.get(series('vigil_alertsink_alerts', { state: 'resolved', severity: 'warning' }))).toBe(0);
    const last = m.get(series('vigil_alertsink_last_notification_timestamp_seconds', { receiver: 'web.hook' }));
    expect(Math.abs((last ?? 0) - Date.now() / 1000)).toBeLessThan(10);
  });

  it('pre-initialises every rejection reason to 0', async () => {
    const v = await start();
    for (const reason of ['auth', 'json', 'schema', 'too_large', 'content_type', 'store']) expect(await rejected(v, reason)).toBe(0);
  });

  it('answers 415 to a body that is not declared JSON', async () => {
    const v = await start();
    const body = JSON.stringify(fixture('alertmanager/firing.json'));
    expect(await post(v.url, undefined, { raw: body, headers: { 'content-type': 'text/plain' } })).toEqual({
      status: 415,
      body: { error: 'content type must be application/json, not "text/plain"' },
    });
    const res = await fetch(`${v.url}/webhook/alertmanager`, { method: 'POST', body: new Blob([body]) });
    expect(res.status).toBe(415);
    expect(await rejected(v, 'content_type')).toBe(2);
    expect(await post(v.url, undefined, { raw: body, headers: { 'content-type': 'application/json; charset=utf-8' } })).toMatchObject({ status: 200 });
  });

  it('answers 413 over body_limit, whether the length is declared or streamed', async () => {
    const v = await start('  body_limit: 2KiB\n');
    const big = notification({ alerts: Array.from({ length: 20 }, (_, i) => ({ fingerprint: `f${i}` })) });
    expect(JSON.stringify(big).length).toBeGreaterThan(2048);
    expect(await post(v.url, big)).toEqual({ status: 413, body: { error: 'body exceeds the limit of 2048 bytes' } });
    const chunks = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(JSON.stringify(big)));
        c.close();
      },
    });
    const streamed = await fetch(`${v.url}/webhook/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await rejected(v, 'too_large')).toBe(2);
    expect(await stored(v)).toEqual([]);
    expect(await post(v.url, notification({ alerts: [{ fingerprint: 'f' }] }))).toMatchObject({ status: 200 });
  });

  it('answers 405 to other methods', async () => {
    const v = await start();
    const res = await fetch(`${v.url}/webhook/alertmanager`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('a broken payload', () => {
  it.each(BROKEN)('%s: 400 naming the field, counted, nothing stored', async (_what, body, reason, message) => {
    const v = await start();
    const res = await post(v.url, undefined, { raw: body });
    expect(res.status).toBe(400);
    expect(String(res.body.error)).toContain(message);
    if (reason === 'schema') expect(res.body.field).toBe(message.split(':')[0]);
    expect(await rejected(v, reason)).toBe(1);
    expect(await stored(v)).toEqual([]);
  });
});

describe('webhook auth', () => {
  const token = 's3cr3t-token';
  const password = 'pa55word';
  const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  let tokenFile: string;
  const startWithAuth = () => {
    tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${token}\n`);
    writeFileSync(join(dir, 'password'), password);
    return start(`  bearer_token_file: ${tokenFile}\n  basic_auth: { username: am, password_file: ${dir}/password }\n`);
  };
  const firing = () => fixture('alertmanager/firing.json');

  it.each([
    ['no credentials', {}, 'credentials required'],
    ['a wrong bearer token', { authorization: 'Bearer nope' }, 'wrong credentials'],
    ['a token that only starts right', { authorization: `Bearer ${token.slice(0, -1)}` }, 'wrong credentials'],
    ['a wrong password', { authorization: basic('am', 'nope') }, 'wrong credentials'],
    ['a wrong user', { authorization: basic('root', password) }, 'wrong credentials'],
    ['another scheme', { authorization: `Digest ${token}` }, 'wrong credentials'],
  ])('answers 401 to %s and stores nothing', async (_what, headers, error) => {
    const v = await startWithAuth();
    const res = await post(v.url, firing(), { headers });
    expect(res).toEqual({ status: 401, body: { error } });
    expect(await rejected(v, 'auth')).toBe(1);
    expect(await stored(v)).toEqual([]);
  });

  it('sends the challenges with a 401', async () => {
    const v = await startWithAuth();
    const res = await fetch(`${v.url}/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="vigil", Basic realm="vigil", charset="UTF-8"');
  });

  it('accepts the bearer token or the basic auth credentials', async () => {
    const v = await startWithAuth();
    expect(await post(v.url, firing(), { headers: { authorization: `Bearer ${token}` } })).toMatchObject({ status: 200 });
    expect(await post(v.url, fixture('alertmanager/resolved.json'), { headers: { authorization: basic('am', password) } })).toMatchObject({ status: 200 });
    expect(await stored(v)).toHaveLength(2);
  });

  it('picks up a rotated token without a reload', async () => {
    const v = await startWithAuth();
    expect(await post(v.url, firing(), { headers: { authorization: `Bearer ${token}` } })).toMatchObject({ status: 200 });
    writeFileSync(tokenFile, 'rotated-token-with-another-length');
    expect(await post(v.url, firing(), { headers: { authorization: `Bearer ${token}` } })).toMatchObject({ status: 401 });
    expect(await post(v.url, firing(), { headers: { authorization: 'Bearer rotated-token-with-another-length' } })).toMatchObject({ status: 200 });
  });

  it('answers 500 (retried) when the token file has gone, never letting the request through', async () => {
    const v = await startWithAuth();
    unlinkSync(tokenFile);
    expect(await post(v.url, firing(), { headers: { authorization: `Bearer ${token}` } })).toEqual({
      status: 500,
      body: { error: 'cannot check credentials' },
    });
    expect(v.logs().some((l) => l.msg === 'cannot read the sink credentials' && String(l.err).includes('ENOENT'))).toBe(true);
    expect(JSON.stringify(v.logs())).not.toContain(token);
    // The basic auth password file is still there: the read API takes those credentials.
    const read = await getJson<{ notifications: unknown[] }>(v.url, '/api/v1/notifications', { authorization: basic('am', password) });
    expect(read.body.notifications).toEqual([]);
  });
});

describe('a store that cannot write', () => {
  it('answers 507 when full (max_size) and stores nothing of that notification', async () => {
    vigil = await startTestDaemon(`alert_sink:\n  store: { path: ${dir}/alerts.db, max_size: 200KiB }\n`);
    const pad = 'x'.repeat(300);
    let last = { status: 200, body: {} as Record<string, unknown> };
    let ok = 0;
    for (let i = 0; i < 100 && last.status === 200; i++) {
      last = await post(
        vigil.url,
        notification({ groupKey: `g${i}`, alerts: Array.from({ length: 30 }, (_, j) => ({ fingerprint: `f${i}-${j}`, labels: { pad } })) }),
      );
      if (last.status === 200) ok++;
    }
    expect(last).toEqual({ status: 507, body: { error: 'notification not stored (store full); send it again' } });
    expect(ok).toBeGreaterThan(0);
    expect(await stored(vigil)).toHaveLength(ok);
    expect(await rejected(vigil, 'store')).toBe(1);
    expect(vigil.logs().some((l) => l.level === 'error' && l.msg === 'cannot store notification' && String(l.err).includes('SQLITE_FULL'))).toBe(true);
  });

  it('answers 503 with Retry-After while another connection holds the lock, and 200 to the retry', async () => {
    const v = await start();
    const lock = keep(new Database(`${dir}/alerts.db`));
    lock.exec('BEGIN IMMEDIATE');
    const firing = fixture('alertmanager/firing.json');
    const res = await fetch(`${v.url}/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(firing) });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    lock.exec('ROLLBACK');
    lock.close();
    expect(await stored(v)).toEqual([]);
    expect(await post(v.url, firing)).toEqual({ status: 200, body: { status: 'stored', id: 1 } });
  });
});

describe('counters across a restart', () => {
  it('keep the stored totals (from the store) and reset the rejections (never stored)', async () => {
    let v = await start();
    await post(v.url, fixture('alertmanager/firing.json'));
    await post(v.url, fixture('alertmanager/firing.json'));
    await post(v.url, undefined, { raw: 'nope' });
    await v.close();
    v = await start();
    const m = await v.metrics();
    expect(m.get(series('vigil_alertsink_notifications_total', { receiver: 'web.hook', status: 'firing' }))).toBe(1);
    expect(m.get(series('vigil_alertsink_duplicates_total', { receiver: 'web.hook' }))).toBe(1);
    expect(m.get(series('vigil_alertsink_rejected_total', { reason: 'json' }))).toBe(0);
    expect(await stored(v)).toHaveLength(1);
  });
});

describe('the sink follows the config on reload', () => {
  it('is absent without an alert_sink block, and comes and goes with it', async () => {
    vigil = await startTestDaemon('');
    expect((await post(vigil.url, fixture('alertmanager/firing.json'))).status).toBe(404);
    expect((await vigil.metrics()).has(series('vigil_alertsink_rejected_total', { reason: 'auth' }))).toBe(false);
    await vigil.reload(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n`);
    expect((await post(vigil.url, fixture('alertmanager/firing.json'))).status).toBe(200);
    await vigil.reload(`alert_sink:\n  enabled: false\n  store: { path: ${dir}/alerts.db }\n`);
    expect((await getJson(vigil.url, '/api/v1/alerts')).status).toBe(404);
    expect([...(await vigil.metrics()).keys()].some((k) => k.startsWith('vigil_alertsink_'))).toBe(false);
    await vigil.reload(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n  body_limit: 1KiB\n`);
    expect(await stored(vigil)).toHaveLength(1);
    const big = notification({ alerts: Array.from({ length: 20 }, (_, i) => ({ fingerprint: `f${i}` })) });
    expect((await post(vigil.url, big)).status).toBe(413);
  });

  it('rejects a reload whose store cannot be opened and keeps the running sink', async () => {
    await start();
    const v = vigil as TestDaemon;
    writeFileSync(join(dir, 'file'), '');
    await expect(v.reload(`alert_sink:\n  store: { path: ${dir}/file/alerts.db }\n`)).rejects.toThrow(
      /alert_sink\.store\.path: cannot open .*file\/alerts\.db/,
    );
    expect((await v.metrics()).get('vigil_config_last_reload_successful')).toBe(0);
    expect((await post(v.url, fixture('alertmanager/firing.json'))).status).toBe(200);
    // The store that could not be opened is not the running sink's: that one stays ready and up.
    expect((await fetch(`${v.url}/readyz`)).status).toBe(200);
    expect((await v.metrics()).get('vigil_alertsink_store_up')).toBe(1);
  });
});
