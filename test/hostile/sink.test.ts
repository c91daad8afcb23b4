import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notification } from '../helpers/alertmanager.js';
import { parseExposition } from '../helpers/exposition.js';
import { postAndLeave } from '../helpers/leaving-sender.js';
import { waitFor } from '../helpers/wait.js';
import { expectHealthy, get, labelValues, startHostileVigil, whileScraping, type HostileVigil } from './harness.js';

/**
 * The high and medium cases of issue 17 against the alert sink of a running vigil: each must leave
 * the process up, its memory bounded, /metrics answering and every label bounded.
 */

let h: HostileVigil;
const MAX_ANSWER = 4 * 1024 * 1024;

beforeAll(async () => {
  h = await startHostileVigil('', `  body_limit: 16MiB\n  limits: { max_answer_size: 4MiB }\n`);
});
afterAll(async () => {
  if (h) expect(await h.stop()).toBe(0);
}, 30_000);

async function send(body: string | Record<string, unknown>, headers = h.auth): Promise<number> {
  const res = await fetch(`${h.url}/webhook/alertmanager`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  await res.arrayBuffer();
  return res.status;
}
const padded = (groupKey: string, bytes: number) =>
  JSON.stringify({ ...notification({ groupKey, alerts: [{ fingerprint: groupKey }] }), padding: 'p'.repeat(bytes) });

describe('reading large stored notifications (high 1)', () => {
  it('answers every page within the byte budget, in parallel, and pages on', async () => {
    for (let i = 0; i < 12; i++) expect(await send(padded(`big${i}`, 3 * 1024 * 1024))).toBe(200);
    const pages = await Promise.all([1, 2, 3].map(() => get(h.url, '/api/v1/notifications?limit=1000')));
    for (const p of pages) {
      expect(p.status).toBe(200);
      expect(p.text.length).toBeLessThan(MAX_ANSWER + 64 * 1024);
      expect((JSON.parse(p.text) as { nextCursor: string | null }).nextCursor).not.toBeNull();
    }
    await expectHealthy(h);
  });
});

describe('listing many alerts (high 1)', () => {
  it('answers at most `limit` alerts (100 by default) with a cursor', async () => {
    const alerts = Array.from({ length: 20_000 }, (_, i) => ({ fingerprint: `many-${i}` }));
    const body = JSON.stringify(notification({ groupKey: 'many', alerts }));
    expect(await whileScraping(h, '20k-alert notification', send(body))).toBe(200);
    const [dflt, ...big] = await Promise.all([get(h.url, '/api/v1/alerts'), ...[1, 2, 3].map(() => get(h.url, '/api/v1/alerts?limit=1000'))]);
    expect((JSON.parse(dflt!.text) as { alerts: unknown[] }).alerts).toHaveLength(100);
    for (const p of big) {
      const body = JSON.parse(p.text) as { alerts: unknown[]; nextCursor: string | null };
      expect(body.alerts).toHaveLength(1000);
      expect(body.nextCursor).not.toBeNull();
    }
    expect((await get(h.url, '/api/v1/alerts?limit=100000')).status).toBe(400);
    await expectHealthy(h);
  });
});

describe('sender-chosen receivers and severities (high 2)', () => {
  it('stay bounded on /metrics, and a flood of refused requests does not slow it down', async () => {
    const batch = async (from: number) =>
      Promise.all(
        Array.from({ length: 25 }, (_, j) => {
          const i = from + j;
          return send(notification({ receiver: `rcv-${i}`, groupKey: `r${i}`, alerts: [{ fingerprint: `r${i}`, severity: `sev-${i}` }] }));
        }),
      );
    for (let from = 0; from < 1500; from += 25) expect(new Set(await batch(from))).toEqual(new Set([200]));
    expect(await send(notification({ receiver: 'R'.repeat(5 * 1024 * 1024), groupKey: 'huge', alerts: [{ fingerprint: 'huge' }] }))).toBe(200);
    const unauthenticated = JSON.stringify(notification({ alerts: [{ fingerprint: 'x' }] }));
    const sender = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push(await send(unauthenticated, { 'content-type': 'application/json' }));
      return statuses;
    };
    const refused = await whileScraping(h, '600 unauthenticated webhooks from 10 senders', Promise.all(Array.from({ length: 10 }, sender)));
    expect(new Set(refused.flat())).toEqual(new Set([401]));
    const metrics = (await get(h.url, '/metrics')).text;
    expect(labelValues(metrics, 'receiver').has('other')).toBe(true);
    expect(metrics).toMatch(/vigil_alertsink_label_values_folded\{label="receiver"\} [1-9]/);
    await expectHealthy(h);
  });
});

describe('a deeply nested notification (medium 3)', () => {
  it('is refused with 400, and the history stays readable', async () => {
    const deep = JSON.stringify(notification({ groupKey: 'deep', alerts: [{ fingerprint: 'deep' }] })).replace(
      /}$/,
      `,"x":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    );
    expect(await send(deep)).toBe(400);
    expect((await get(h.url, '/api/v1/notifications?limit=5')).status).toBe(200);
    await expectHealthy(h);
  });
});

describe('a 55k-alert notification (medium 10)', () => {
  it('is stored while /metrics keeps answering', async () => {
    const alerts = Array.from({ length: 55_000 }, (_, i) => ({ fingerprint: `huge-${i}`, severity: 'warning' }));
    const body = JSON.stringify(notification({ groupKey: 'g55k', alerts }));
    expect(await whileScraping(h, '55k-alert notification', send(body))).toBe(200);
    await expectHealthy(h);
  });
});

describe('senders closing their connections 300 ms after posting 5,000-alert notifications (high)', () => {
  it('cost bounded memory: what they leave is dropped and counted, not queued for the store', async () => {
    const alerts = Array.from({ length: 5000 }, (_, i) => ({ fingerprint: `flood-${i}`, severity: 'warning' }));
    const end = Date.now() + 8000;
    const sender = async (s: number) => {
      for (let i = 0; Date.now() < end; i++) {
        await postAndLeave(h.url, Buffer.from(JSON.stringify(notification({ groupKey: `flood-${s}-${i}`, alerts }))), 300, {
          authorization: h.auth.authorization!,
        });
      }
    };
    await whileScraping(h, '16 senders leaving 300 ms after posting', Promise.all(Array.from({ length: 16 }, (_, s) => sender(s))));
    // What a sender left is dropped when its turn to be stored comes (the flood's bodies are parsed first), and
    // the count reaches /metrics at most once a second: both after the senders are done.
    const dropped = await waitFor('a notification dropped because its sender left', async () => {
      const n = parseExposition((await get(h.url, '/metrics')).text).get('vigil_alertsink_rejected_total{reason="sender_gone"}') ?? 0;
      return n > 0 ? n : undefined;
    });
    expect(dropped).toBeGreaterThan(0);
    await expectHealthy(h);
  }, 120_000);
});

describe('malformed requests (low)', () => {
  it('a corrupt gzip body is a 415 (compressed bodies are refused unread) and a bad %-escape a 400', async () => {
    expect(await send('not gzip at all', { ...h.auth, 'content-encoding': 'gzip' })).toBe(415);
    expect(await send(gzipSync('{"truncated').subarray(0, 12).toString('latin1'), { ...h.auth, 'content-encoding': 'gzip' })).toBe(415);
    expect((await get(h.url, '/api/v1/alerts/%/timeline')).status).toBe(400);
    await expectHealthy(h);
  });
});
