import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISH_EVERY_MS } from '../../src/server/telemetry.js';
import { basicAuth, loopbackAddresses, passwordFlood, send, type PlainAnswer } from '../helpers/password-flood.js';
import type { VigilProcess } from '../helpers/process.js';
import { startSecuredVigil } from '../helpers/secured-vigil.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Wrong passwords from many addresses must not lock out the scraper or Alertmanager: vigil with
 * basic auth (plain HTTP: the handshakes are not what this is about), the alert sink without
 * credentials of its own (so Alertmanager posts with web-config basic auth), and a guesser that
 * rotates through hundreds of loopback addresses, holding requests open all along.
 */
const PASSWORD = 'scrape-pa55word-41d0';
// Cost 8: a round is a few ms, so a flood fills the queue and a test of 30 checks stays short.
const HASH = bcrypt.hashSync(PASSWORD, 8);
/** Each try of the scraper below is a user not yet verified: the uncached check of a first scrape after a start. */
const SCRAPERS = Array.from({ length: 30 }, (_, i) => `scraper-${i}`);
const FIRING = readFileSync(fileURLToPath(new URL('../fixtures/alertmanager/firing.json', import.meta.url)), 'utf8');
const dir = tempDir('vigil-authflood-');
let vigil: VigilProcess;

const users = (extra: Record<string, string> = {}) =>
  Object.entries({ prometheus: HASH, alertmanager: HASH, other: HASH, ...Object.fromEntries(SCRAPERS.map((u) => [u, HASH])), ...extra })
    .map(([u, h]) => `  ${u}: ${h}\n`)
    .join('');
const writeWebConfig = (opts: { users?: Record<string, string>; extra?: string } = {}) =>
  writeFileSync(join(dir, 'web.yml'), `basic_auth_users:\n${users(opts.users)}${opts.extra ?? ''}`);

beforeAll(async () => {
  vigil = await startSecuredVigil(dir, {
    config: `alert_sink:\n  store: { path: ${join(dir, 'alerts.db')} }\n`,
    webConfig: `basic_auth_users:\n${users()}`,
    flags: ['--web.enable-lifecycle'],
  });
  await vigil.waitFor(/"msg":"alert sink ready"/);
}, 90_000);
afterAll(async () => {
  await vigil?.stop();
});

const good = (user = 'prometheus') => basicAuth(user, PASSWORD);
const get = (localAddress: string, authorization = good(), path = '/metrics') => send(vigil.url, { localAddress, authorization, path });
const reload = async () =>
  expect((await send(vigil.url, { localAddress: '127.0.0.1', authorization: good(), method: 'POST', path: '/-/reload' })).status).toBe(200);
const webhook = (localAddress: string, authorization: string) =>
  send(vigil.url, {
    localAddress,
    authorization,
    method: 'POST',
    path: '/webhook/alertmanager',
    body: FIRING,
  });

/** Sends wrong passwords from `address` until it is blocked (a 429 without a round). */
async function block(address: string): Promise<void> {
  for (let i = 0; i < 20; i++) if ((await get(address, basicAuth('prometheus', `wrong-${i}`))).status === 429) return;
  throw new Error(`${address} was never throttled`);
}

/**
 * A counter's value once every change so far is on /metrics: it has held still for longer than a change
 * takes to be published (PUBLISH_EVERY_MS, doubled for a timer that fires late on a busy machine). Nothing
 * else tells the test that a publication has come: the counters hold nothing that only the test changes.
 */
async function settled(name: string): Promise<number> {
  let seen: { value: number; at: number } | undefined;
  return waitFor(`${name} to hold still`, async () => {
    const asked = performance.now();
    const r = await send(vigil.url, { localAddress: '127.0.0.1', authorization: good(), path: '/metrics' });
    expect(r.status).toBe(200);
    const value = Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(r.text)?.[1]);
    if (!Number.isFinite(value)) return undefined;
    if (seen?.value !== value) seen = { value, at: performance.now() };
    return asked - seen.at > 2 * PUBLISH_EVERY_MS ? value : undefined;
  });
}

describe('the verified-credentials cache across reloads', () => {
  it('keeps what users with an unchanged hash verified, so a reload costs no round and the scraper sharing an address with a guesser goes on', async () => {
    const shared = '127.3.0.1';
    expect((await get(shared)).status).toBe(200);
    await block(shared);
    expect((await get(shared)).status).toBe(200);
    await reload();
    // Still verified: an uncached check from this address would wait out its block (429).
    expect((await get(shared)).status).toBe(200);
    const rounds = await settled('vigil_http_bcrypt_rounds_total');
    expect(rounds).toBeGreaterThan(0);
    // Another user's hash changed: what this one verified still holds, without a round.
    writeWebConfig({ users: { other: bcrypt.hashSync('another-password', 4) } });
    await reload();
    expect((await get(shared)).status).toBe(200);
    expect(await settled('vigil_http_bcrypt_rounds_total')).toBe(rounds);
    // Its own hash changed: the old password is checked again, and refused.
    writeWebConfig({ users: { prometheus: bcrypt.hashSync('rotated-password', 4) } });
    await reload();
    expect((await get('127.3.0.2')).status).toBe(401);
    writeWebConfig();
    const restore = await send(vigil.url, {
      localAddress: '127.3.0.3',
      authorization: basicAuth('prometheus', 'rotated-password'),
      method: 'POST',
      path: '/-/reload',
    });
    expect(restore.status).toBe(200);
  }, 60_000);
});

describe('wrong passwords from many addresses', () => {
  it('never lock out an uncached check from an address without failures, and a refused webhook gets 503, a wrong one 401', async () => {
    const guessers = loopbackAddresses(1, 100);
    const flood = passwordFlood(vigil.url, { addresses: guessers, open: 16, user: 'prometheus', pauseMs: 50 });
    try {
      // The guesser's addresses each failed once: from then on they compete among themselves.
      await waitFor('every guessing address to fail once', async () => (flood.failed.size === guessers.length ? true : undefined), 60_000, {
        everyMs: 100,
        describeFailure: () => `: ${flood.failed.size} failed, answers ${JSON.stringify([...flood.statuses])}`,
      });
      const tries: PlainAnswer[][] = [];
      for (const [i, user] of SCRAPERS.entries()) {
        const answers: PlainAnswer[] = [];
        for (let t = 0; t < 3 && answers.at(-1)?.status !== 200; t++) {
          // Deliberate: a client waits as the refusal's Retry-After asks, and the claim is that doing so gets it in within three tries.
          if (t > 0) await new Promise((r) => setTimeout(r, 1000 * (answers.at(-1)?.retryAfter ?? 1)));
          answers.push(await get(`127.2.0.${i + 1}`, good(user)));
        }
        tries.push(answers);
      }
      const firstTry = tries.filter((a) => a[0]?.status === 200).length;
      expect(
        tries.map((a) => a.at(-1)?.status),
        `first-try successes ${firstTry}/30; guesses answered ${JSON.stringify([...flood.statuses])}`,
      ).toEqual(Array(30).fill(200));

      // Alertmanager retries a 5xx and drops a 4xx: a webhook turned away unchecked must be retried.
      const blocked = '127.4.0.1';
      await block(blocked);
      const refused = await webhook(blocked, good('alertmanager'));
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
      expect((await webhook('127.4.0.2', basicAuth('alertmanager', 'wrong'))).status).toBe(401);
      expect((await webhook('127.4.0.3', good('alertmanager'))).status).toBe(200);
    } finally {
      await flood.stop();
    }
  }, 180_000);
});

describe("the web config's rate_limit", () => {
  it('answers a webhook over it 503 with Retry-After (Alertmanager retries it), a scrape 429', async () => {
    writeWebConfig({ extra: 'rate_limit: { interval: 3s, burst: 1 }\n' });
    await reload();
    expect((await get('127.5.0.1')).status).toBe(200);
    const refused = await webhook('127.5.0.2', good('alertmanager'));
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect((await get('127.5.0.3')).status).toBe(429);
    writeWebConfig();
    await waitFor(
      'the reload without a rate limit',
      async () =>
        (await send(vigil.url, { localAddress: '127.0.0.1', authorization: good(), method: 'POST', path: '/-/reload' })).status === 200 ? true : undefined,
      20_000,
      { everyMs: 1000 },
    );
  }, 30_000);
});
