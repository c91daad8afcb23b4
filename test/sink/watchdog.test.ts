import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';

let dir: string;
let v: TestDaemon;
const healthy = async () => (await v.metrics()).get('vigil_alertsink_watchdog_healthy');
const watchdog = (status: 'firing' | 'resolved' = 'firing', alertname = 'Watchdog') =>
  notification({
    groupKey: '{}:{alertname="Watchdog"}',
    alerts: [{ fingerprint: 'wd', alertname, severity: 'none', status, startsAt: new Date().toISOString() }],
  });

beforeEach(async () => {
  dir = tempDir('vigil-watchdog-');
  v = await startTestDaemon(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n  watchdog: { max_silence: 400ms }\n`);
});
afterEach(async () => {
  await v.close();
});

describe('the alert path watchdog', () => {
  it('is healthy at start, with no last-seen series before a Watchdog ever arrived', async () => {
    // A max_silence far longer than a loaded machine may take between the start and these reads.
    await v.close();
    v = await startTestDaemon(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n  watchdog: { max_silence: 1h }\n`);
    expect(await healthy()).toBe(1);
    expect((await v.metrics()).has('vigil_alertsink_watchdog_last_seen_timestamp_seconds')).toBe(false);
    expect(await getJson(v.url, '/api/v1/health')).toMatchObject({ status: 200, body: { status: 'ok', watchdog: { healthy: true, lastSeen: null } } });
  });

  it('reports the path broken after max_silence without one: metric, error log, /api/v1/health; /readyz unaffected', async () => {
    await waitFor('the watchdog to report broken', async () => ((await healthy()) === 0 ? true : undefined), 5000);
    const broken = v.logs().filter((l) => l.msg === 'alert path broken: no Watchdog alert for longer than watchdog.max_silence');
    expect(broken).toHaveLength(1);
    expect(broken[0]).toMatchObject({ level: 'error', alertname: 'Watchdog', last_seen: 'never', max_silence_seconds: 0.4 });
    expect(await getJson(v.url, '/api/v1/health')).toMatchObject({
      status: 503,
      body: { status: 'broken', watchdog: { healthy: false, maxSilenceSeconds: 0.4 } },
    });
    expect((await fetch(`${v.url}/readyz`)).status).toBe(200);
  });

  it('recovers as soon as a firing Watchdog arrives, duplicates keep it alive, other alerts and resolutions do not', async () => {
    // Long enough that a loaded machine's slow post does not open a gap of max_silence by itself.
    const silenceMs = 2000;
    await v.close();
    v = await startTestDaemon(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n  watchdog: { max_silence: ${silenceMs}ms }\n`);
    await waitFor('broken', async () => ((await healthy()) === 0 ? true : undefined), 4 * silenceMs);
    expect((await post(v.url, watchdog('firing', 'NotTheWatchdog'))).status).toBe(200);
    expect((await post(v.url, watchdog('resolved'))).status).toBe(200);
    expect(await healthy()).toBe(0);
    const dog = watchdog();
    expect(await post(v.url, dog)).toMatchObject({ status: 200, body: { status: 'stored' } });
    expect(await healthy()).toBe(1);
    const seen = (await v.metrics()).get('vigil_alertsink_watchdog_last_seen_timestamp_seconds') ?? 0;
    expect(Math.abs(seen - Date.now() / 1000)).toBeLessThan(5);
    expect(v.logs().some((l) => l.level === 'info' && l.msg === 'alert path recovered: the Watchdog alert arrives again')).toBe(true);
    // The same notification again (the repeat, or the HA peer's copy) is a duplicate, and still a
    // heartbeat. That is a claim about time passing: the duplicates come half a max_silence apart,
    // for twice max_silence in all, so without them the path would read broken by the last one.
    const first = Date.now();
    for (let i = 0; i < 4; i++) {
      await sleep(silenceMs / 2); // deliberate: the daemon's watchdog runs on the real clock
      expect(await post(v.url, dog)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    }
    expect(Date.now() - first).toBeGreaterThanOrEqual(2 * silenceMs);
    expect(await healthy()).toBe(1);
    expect(await getJson(v.url, '/api/v1/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });
});
