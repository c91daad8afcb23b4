import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import type { AlertStoreConfig } from '../../src/config-fields/alert-sink.js';
import { storeKind, type StoreKind } from '../../src/sink/store/open-store.js';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { series } from '../helpers/exposition.js';
import { NEVER } from '../helpers/schedules.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Opening the SQLite store reads every page of the file (quick_check): on a slow disk that takes
 * minutes. The collectors never wait for it: the jobs run and /metrics serves their series while
 * the store opens, and the sink alone answers 503 (after its credentials) until the store is open.
 * The opening is held here by a gate the test opens, in front of the real store.
 */
let sim: SecretsSimulator;
let dir: string;
let vigil: TestDaemon | undefined;
/** Held until the test releases it; one per test, whatever number of times the config is applied. */
let gate: Promise<void>;
let release: () => void;
let opens = 0;

/** The real store kind, whose opening waits for the gate. */
const gatedKind = (cfg: AlertStoreConfig): StoreKind => {
  const k = storeKind(cfg);
  return {
    ...k,
    open: async (...a: Parameters<StoreKind['open']>) => {
      opens++;
      await gate;
      return k.open(...a);
    },
  };
};

const yaml = (targets: string[]) =>
  `secrets:\n${targets.map((t) => `  - name: ${t}\n    address: ${sim.cluster('dr-primary').url}\n    schedule: "${NEVER}"\n`).join('')}` +
  `alert_sink:\n  store: { path: ${join(dir, 'alerts.db')} }\n`;

const ready = async (v: TestDaemon) => {
  const res = await fetch(`${v.url}/readyz`);
  return { status: res.status, body: (await res.json()) as { unavailable?: string[] } };
};

beforeAll(async () => {
  sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => {
  dir = tempDir('vigil-opening-');
  gate = new Promise<void>((r) => (release = r));
  opens = 0;
});
afterEach(async () => {
  release();
  await vigil?.close();
  vigil = undefined;
});

describe('an alert store that is slow to open', () => {
  it('holds no collector: the targets are served while it opens, the sink answers 503 and /readyz says why, then the sink stores', async () => {
    const v = (vigil = await startTestDaemon(yaml(['primary']), { sink: { storeKind: gatedKind }, awaitSink: false }));
    const m = await v.metrics();
    expect(m.get(series('secrets_replication_up', { target: 'primary', kind: 'dr' }))).toBe(1);

    const res = await fetch(`${v.url}/webhook/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(notification({ alerts: [{ fingerprint: 'f1' }] })),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await res.json()) as { error: string }).error).toMatch(/starting/);
    expect((await getJson(v.url, '/api/v1/notifications')).status).toBe(503);
    const r = await ready(v);
    expect(r.status).toBe(503);
    expect(r.body.unavailable).toEqual([expect.stringMatching(/^alert_sink: store opening/)]);

    release();
    await waitFor('the store opened', async () => ((await ready(v)).status === 200 ? true : undefined), 20_000, { everyMs: 20 });
    expect((await post(v.url, notification({ alerts: [{ fingerprint: 'f1' }] }))).status).toBe(200);
    expect((await getJson<{ notifications: unknown[] }>(v.url, '/api/v1/notifications')).body.notifications).toHaveLength(1);
    expect((await v.metrics()).get(series('vigil_alertsink_store_up', {}))).toBe(1);
  });

  it('a reload while it opens applies to the collectors at once and keeps the opening store', async () => {
    const v = (vigil = await startTestDaemon(yaml(['primary']), { sink: { storeKind: gatedKind }, awaitSink: false }));
    await v.reload(yaml(['primary', 'second']));
    await v.collect();
    expect((await v.metrics()).get(series('secrets_replication_up', { target: 'second', kind: 'dr' }))).toBe(1);
    expect(opens).toBe(1);
    release();
    await waitFor('the store opened', async () => ((await ready(v)).status === 200 ? true : undefined), 20_000, { everyMs: 20 });
    expect((await post(v.url, notification({ alerts: [{ fingerprint: 'f1' }] }))).status).toBe(200);
  });

  it('stopping vigil while it opens does not wait for it', async () => {
    const v = (vigil = await startTestDaemon(yaml(['primary']), { sink: { storeKind: gatedKind }, awaitSink: false }));
    vigil = undefined;
    await v.close();
    // The opening the gate was holding ends now, and its store is closed rather than used.
    release();
  });
});
