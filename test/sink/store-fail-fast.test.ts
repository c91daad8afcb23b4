import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AlertStoreConfig } from '../../src/config-fields/alert-sink.js';
import type { AlertStore } from '../../src/sink/store/alert-store.js';
import { storeKind } from '../../src/sink/store/open-store.js';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { APP_USER, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startSwitchableProxy, type SwitchableProxy } from '../helpers/switchable-proxy.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A store known to be down is not asked again by each webhook (issue 28): once PostgreSQL is found
 * unreachable, posts get their 503 at once without a store call, one background probe finds the
 * database back, and nothing refused meanwhile is in the store.
 */
let db: TestPostgres;
let proxy: SwitchableProxy;
let vigil: TestDaemon | undefined;
let records = 0;

/** The real store, with its writes counted: a post answered without one never waited on the database. */
const counted = (s: AlertStore): AlertStore =>
  new Proxy(s, {
    get(target, key) {
      const v = Reflect.get(target, key) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (key === 'record') records++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
const countingKind = (cfg: AlertStoreConfig) => {
  const k = storeKind(cfg);
  return { ...k, open: async (onIdleError: (e: Error) => void) => counted(await k.open(onIdleError)) };
};

beforeAll(async () => {
  db = await startPostgres();
  proxy = await startSwitchableProxy(new URL(`http://127.0.0.1:${db.port}`));
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await db?.destroy();
});
afterEach(async () => {
  await proxy.restore();
  await vigil?.close();
  vigil = undefined;
});

const ready = async (v: TestDaemon) => (await fetch(`${v.url}/readyz`)).status;

describe('a webhook while PostgreSQL is known to be unreachable', () => {
  it('is answered 503 with Retry-After without a store call, until the probe finds the database back', async () => {
    const port = new URL(proxy.url).port;
    const store = `postgres: { url: "postgres://${APP_USER}@127.0.0.1:${port}/vigil", password_file: ${db.passwordFile}, tls: { mode: disable }, connect_timeout: 2s, statement_timeout: 2s }`;
    const v = (vigil = await startTestDaemon(`alert_sink:\n  store: { ${store} }\n`, { sink: { storeKind: countingKind, reopenMs: 200 } }));
    const send = (groupKey: string) => post(v.url, notification({ groupKey, alerts: [{ fingerprint: groupKey }] }));
    expect((await send('before')).status).toBe(200);
    proxy.blackhole();
    // The first post may wait for the store's timeout: it is how vigil learns the database is gone.
    expect((await send('first')).status).toBe(503);
    await waitFor('the store marked unavailable', async () => ((await ready(v)) === 503 ? true : undefined), 30_000);
    const asked = records;
    const during = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        fetch(`${v.url}/webhook/alertmanager`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(notification({ groupKey: `during${i}`, alerts: [{ fingerprint: `d${i}` }] })),
        }),
      ),
    );
    expect(during.map((r) => r.status)).toEqual([503, 503, 503, 503, 503]);
    expect(during.map((r) => r.headers.get('retry-after'))).toEqual(['5', '5', '5', '5', '5']);
    expect(records).toBe(asked);
    await proxy.restore();
    await waitFor('the probe found the store back', async () => ((await ready(v)) === 200 ? true : undefined), 30_000);
    expect(records).toBe(asked);
    expect((await send('after')).status).toBe(200);
    const page = await getJson<{ notifications: Array<{ groupKey: string }> }>(v.url, '/api/v1/notifications');
    expect(page.body.notifications.map((n) => n.groupKey)).toEqual(['after', 'before']);
  }, 90_000);
});
