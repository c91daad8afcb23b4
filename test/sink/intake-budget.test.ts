import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getJson, notification } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { StoreGate } from '../helpers/gated-store.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/**
 * What the sink holds of notifications not yet stored is bounded, in count and bytes, until the
 * store settles them (not only while their bodies are read); past it a sender is asked to retry
 * (503 + Retry-After, which Alertmanager retries), and a sender that leaves takes its notification along.
 */

let dir: string;
let v: TestDaemon | undefined;
let gate: StoreGate;
const start = async (extra: string) =>
  (v = await startTestDaemon(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n${extra}`, { sink: { storeKind: gate.storeKind } }));
/** A notification of about `bytes` bytes of body. */
const sized = (groupKey: string, bytes: number) =>
  JSON.stringify({ ...notification({ groupKey, alerts: [{ fingerprint: groupKey }] }), padding: 'p'.repeat(bytes) });
const send = async (url: string, body: string, signal?: AbortSignal) => {
  const res = await fetch(`${url}/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal });
  await res.arrayBuffer();
  return { status: res.status, retryAfter: res.headers.get('retry-after') };
};
const stored = async (url: string) =>
  (await getJson<{ notifications: Array<{ groupKey: string }> }>(url, '/api/v1/notifications?limit=100')).body.notifications.map((n) => n.groupKey).sort();

beforeEach(() => {
  dir = tempDir('vigil-intake-');
  gate = new StoreGate();
});
afterEach(async () => {
  gate.open();
  await v?.close();
  v = undefined;
});

describe('the intake budget', () => {
  it('holds at most max_in_flight notifications until the store settles them; the others get 503 with Retry-After', async () => {
    const u = await start('  max_in_flight: 3\n');
    const answers = Array.from({ length: 10 }, (_, i) => send(u.url, sized(`n${i}`, 20_000)));
    const refused = await waitFor('the senders past the bound to be answered', async () => {
      const settled = await Promise.all(answers.map((a) => Promise.race([a, new Promise<undefined>((r) => setTimeout(() => r(undefined), 20))])));
      const done = settled.filter((a) => a !== undefined);
      return done.length >= 7 ? done : undefined;
    });
    // The store is slow: three wait for it, and nobody else got past the bound.
    expect(gate.pending).toBe(3);
    expect(gate.maxPending).toBe(3);
    expect(refused).toHaveLength(7);
    for (const r of refused) expect(r).toEqual({ status: 503, retryAfter: '1' });
    gate.open();
    expect((await Promise.all(answers)).filter((a) => a.status === 200)).toHaveLength(3);
    expect((await stored(u.url)).length).toBe(3);
    expect((await u.metrics()).get('vigil_alertsink_rejected_total{reason="overload"}')).toBe(7);
    // Settled: the places are free again.
    expect((await send(u.url, sized('after', 20_000))).status).toBe(200);
  });

  it('holds at most max_in_flight_size bytes of bodies until the store settles them', async () => {
    const u = await start('  max_in_flight: 100\n  body_limit: 100KiB\n  max_in_flight_size: 300KiB\n');
    const answers = Array.from({ length: 8 }, (_, i) => send(u.url, sized(`b${i}`, 90_000)));
    await waitFor('the senders past the bound to be answered', async () => (gate.pending === 3 ? true : undefined));
    gate.open();
    const statuses = (await Promise.all(answers)).map((a) => a.status);
    expect(gate.maxPendingBytes).toBeLessThanOrEqual(300 * 1024);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(1);
    expect(new Set(statuses)).toEqual(new Set([200, 503]));
  });

  it('refuses a budget smaller than one body, naming the key', async () => {
    await expect(start('  body_limit: 10MiB\n  max_in_flight_size: 1MiB\n')).rejects.toThrow(/alert_sink\.max_in_flight_size: must be at least body_limit/);
  });
});

describe('a sender that leaves before its notification is stored', () => {
  it('has it dropped, counted, and its place freed; the others are stored', async () => {
    const u = await start('  max_in_flight: 1\n');
    const leaving = new AbortController();
    const answer = send(u.url, sized('left', 1000), leaving.signal).catch((e: Error) => e.name);
    await waitFor('the store to be handed the notification', async () => (gate.pending === 1 ? true : undefined));
    leaving.abort();
    expect(await answer).toBe('AbortError');
    await waitFor('the sink to see the sender leave', async () => (gate.signals[0]?.aborted ? true : undefined), 5000);
    gate.open();
    await waitFor('the drop to be counted', async () =>
      (await u.metrics()).get('vigil_alertsink_rejected_total{reason="sender_gone"}') === 1 ? true : undefined,
    );
    expect((await send(u.url, sized('stayed', 1000))).status).toBe(200);
    expect(await stored(u.url)).toEqual(['stayed']);
    expect(v?.rawLogs()).toMatch(/notification dropped: the sender closed its connection before it was stored/);
  });
});
