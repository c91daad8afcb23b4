import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePayload } from '../../src/sink/payload-schema.js';
import { getJson, notification } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { fixture } from '../helpers/fixtures.js';
import { around, NETWORK_SETTINGS, SETTINGS } from './arbitraries.js';

/** The webhook payload schema and the webhook itself under random and mutated notifications. */
const docs = [fixture('alertmanager/firing.json'), fixture('alertmanager/resolved.json'), notification({ alerts: [{ fingerprint: 'f1' }] })];
const bodies = fc.oneof(
  around(...docs).map((d) => JSON.stringify(d) ?? ''),
  fc.string({ unit: 'binary', maxLength: 300 }),
  around(...docs).map((d) => (JSON.stringify(d) ?? '').slice(0, 40)),
);

describe('webhook payload schema', () => {
  it('answers ok or a reason with a message, and never throws', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const r = parsePayload(body);
        if (!r.ok) {
          expect(['json', 'schema']).toContain(r.reason);
          expect(r.error.length).toBeGreaterThan(0);
        }
      }),
      SETTINGS,
    );
  });
});

describe('POST /webhook/alertmanager', () => {
  let vigil: TestDaemon;
  beforeAll(async () => {
    vigil = await startTestDaemon('alert_sink:\n  store: { path: ":memory:" }\n  body_limit: 64KiB\n');
  });
  afterAll(async () => {
    await vigil?.close();
  });
  const count = async () => (await getJson<{ notifications: unknown[] }>(vigil.url, '/api/v1/notifications?limit=1000')).body.notifications.length;

  it('answers 4xx with a message (never 5xx) to bad bodies, and stores nothing of them', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const before = await count();
        const res = await fetch(`${vigil.url}/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const answer = (await res.json()) as { error?: string };
        expect(res.status).toBeLessThan(500);
        if (res.status === 200) return;
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(answer.error?.length).toBeGreaterThan(0);
        expect(await count()).toBe(before);
      }),
      NETWORK_SETTINGS,
    );
  }, 120_000);
});
