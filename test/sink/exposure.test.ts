import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../../src/config-fields/listen-address.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/support/logger.js';
import { CATALOG } from '../../src/catalog.js';
import { SnapshotStore } from '../../src/metrics/snapshot-store.js';
import { AlertSinkService, type AlertSinkDeps } from '../../src/sink/service.js';
import { storeKind, type StoreKind } from '../../src/sink/store/open-store.js';
import { notification, post } from '../helpers/alertmanager.js';
import { tempDir } from '../helpers/temp-dir.js';

let dir: string;
let sink: AlertSinkService | undefined;
let server: Server | undefined;
beforeEach(() => {
  dir = tempDir('vigil-exposure-');
});
afterEach(async () => {
  if (server) await new Promise((r) => server!.close(r));
  server = undefined;
  await sink?.stop();
  sink = undefined;
});

function startSink(listenAddress: string, extra = ''): { apply: Promise<void>; logs: () => string } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  const started = new AlertSinkService({ metrics: new SnapshotStore(CATALOG), log: createLogger('info', 'json', out), listenAddress });
  sink = started;
  const config = parseConfig(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n${extra}`, 'vigil.yml', {});
  // The first apply takes the config; the store opens after it.
  return { apply: started.apply(config).then(() => started.started()), logs: () => text };
}

/**
 * The running sink's routes on a loopback port of their own (the address the sink was given is only
 * what its exposure check judges, never bound): its URL, for posting notifications to it.
 */
async function serveSink(): Promise<string> {
  const s = express().use(sink!.routes).listen(0, '127.0.0.1');
  server = s;
  await once(s, 'listening');
  return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
}

/** A sink on loopback whose store opens the way `open` says, given the real SQLite store's kind. */
function sinkOpening(open: (real: StoreKind) => StoreKind['open'], pages?: AlertSinkDeps['pages']): AlertSinkService {
  return new AlertSinkService({
    metrics: new SnapshotStore(CATALOG),
    log: createLogger('error', 'json', new PassThrough()),
    listenAddress: '127.0.0.1:9810',
    storeKind: (cfg) => {
      const real = storeKind(cfg);
      return { ...real, open: open(real) };
    },
    pages,
    reopenMs: 60_000,
  });
}

const firing = notification({ alerts: [{ fingerprint: 'f1' }] });
/** Logged when the sink runs without credentials beyond loopback. */
const UNAUTHENTICATED_WARNING = /accepts notifications without credentials/;

describe('an alert sink without credentials', () => {
  it.each(['0.0.0.0:9810', ':9810', '[::]:9810', '10.1.2.3:9810'])('is refused on %s, naming the way out', async (address) => {
    await expect(startSink(address).apply).rejects.toThrow(/alert_sink: no bearer_token_file or basic_auth.*set alert_sink\.allow_unauthenticated: true/);
  });

  it('starts on a non-loopback address when allow_unauthenticated is set, with a warning', async () => {
    const s = startSink('0.0.0.0:9810', '  allow_unauthenticated: true\n');
    await s.apply;
    expect(s.logs()).toMatch(/"level":"warn".*accepts notifications without credentials/);
  });

  it('starts on loopback as before', async () => {
    const s = startSink('127.0.0.1:9810');
    await s.apply;
    // As before the check: running, taking notifications without credentials, and no warning.
    expect(s.logs()).toMatch(/"msg":"alert sink ready"/);
    expect(s.logs()).not.toMatch(UNAUTHENTICATED_WARNING);
    expect((await post(await serveSink(), firing)).status).toBe(200);
  });

  it('starts anywhere with a bearer token', async () => {
    const token = join(dir, 'token');
    writeFileSync(token, 'secret\n');
    const s = startSink('0.0.0.0:9810', `  bearer_token_file: ${token}\n`);
    await s.apply;
    expect(s.logs()).toMatch(/"auth":"bearer".*"msg":"alert sink ready"/);
    expect(s.logs()).not.toMatch(UNAUTHENTICATED_WARNING);
    // Started because the token guards it: a notification without it, or with another, is refused.
    const url = await serveSink();
    expect((await post(url, firing)).status).toBe(401);
    expect((await post(url, firing, { headers: { authorization: 'Bearer guessed' } })).status).toBe(401);
    expect((await post(url, firing, { headers: { authorization: 'Bearer secret' } })).status).toBe(200);
  });
});

/**
 * Authentication comes before anything else the sink says: a request without valid credentials is
 * a 401, the same 401, whether the store is opening, down or up. Only a caller that proved who it
 * is learns the store's state (503 while it cannot be used).
 */
const TOKEN = 's3cr3t-token';
const CREDENTIALS = {
  none: {},
  wrong: { authorization: 'Bearer nope' },
  right: { authorization: `Bearer ${TOKEN}` },
} as const;
type Who = keyof typeof CREDENTIALS;

/** Every sink endpoint that has credentials: the webhook, the read API, the history's pages. */
const ENDPOINTS = {
  webhook: { path: '/webhook/alertmanager', method: 'POST' },
  'read API': { path: '/api/v1/alerts', method: 'GET' },
  'history page': { path: '/alerts', method: 'GET' },
} as const;
type Endpoint = keyof typeof ENDPOINTS;

let url: string;

interface Answer {
  status: number;
  body: string;
  challenge: string | null;
  retryAfter: string | null;
}

/** A sink with a bearer token whose store opens the way `open` says, served on a port of its own; with its first apply (under way). */
async function startSinkWithToken(open: (real: StoreKind) => StoreKind['open']): Promise<{ apply: Promise<void> }> {
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`);
  // A stand-in for the history's pages: what matters here is what stands in front of them.
  sink = sinkOpening(open, () => (_req, res) => void res.type('html').send('<h1>history</h1>'));
  const config = parseConfig(`alert_sink:\n  bearer_token_file: ${tokenFile}\n  store: { path: ${dir}/alerts.db }\n`, 'vigil.yml', {});
  const started = sink;
  const apply = sink.apply(config).then(() => started.started());
  url = await serveSink();
  return { apply };
}

async function ask(endpoint: Endpoint, who: Who): Promise<Answer> {
  const { path, method } = ENDPOINTS[endpoint];
  const body = method === 'POST' ? JSON.stringify(notification({ alerts: [{ fingerprint: 'f1' }] })) : undefined;
  const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', ...CREDENTIALS[who] }, body });
  return { status: res.status, body: await res.text(), challenge: res.headers.get('www-authenticate'), retryAfter: res.headers.get('retry-after') };
}

/** What each endpoint answers each caller, asked one after the other. */
async function answers(): Promise<Record<Endpoint, Record<Who, Answer>>> {
  const all = {} as Record<Endpoint, Record<Who, Answer>>;
  for (const endpoint of Object.keys(ENDPOINTS) as Endpoint[]) {
    all[endpoint] = { none: await ask(endpoint, 'none'), wrong: await ask(endpoint, 'wrong'), right: await ask(endpoint, 'right') };
  }
  return all;
}

describe('authentication before the store state', () => {
  it('while the store opens: 401 without valid credentials, 503 with them, and the same 401 once it is open', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // The real SQLite store, opened only once the test lets it: the start-up window, held open.
    const { apply } = await startSinkWithToken((real) => async (onIdleError) => (await held, real.open(onIdleError)));

    const opening = await answers();
    for (const endpoint of Object.keys(ENDPOINTS) as Endpoint[]) {
      expect(opening[endpoint].none.status, `${endpoint}, no credentials`).toBe(401);
      expect(opening[endpoint].wrong.status, `${endpoint}, wrong credentials`).toBe(401);
      expect(opening[endpoint].right.status, `${endpoint}, right credentials`).toBe(503);
      expect(opening[endpoint].right.retryAfter, endpoint).toBe('1');
    }
    // The webhook's credentials are the sink's own while it starts too: web-config basic auth leaves them to it.
    expect(sink!.authenticatesItself({ url: '/webhook/alertmanager' } as IncomingMessage)).toBe(true);

    release();
    await apply;
    const open = await answers();
    for (const endpoint of Object.keys(ENDPOINTS) as Endpoint[]) {
      // Nothing in a refusal tells a stranger whether the store was opening.
      expect(opening[endpoint].none, endpoint).toEqual(open[endpoint].none);
      expect(opening[endpoint].wrong, endpoint).toEqual(open[endpoint].wrong);
      expect(open[endpoint].none.challenge, endpoint).toBe('Bearer realm="vigil"');
      expect(open[endpoint].right.status, `${endpoint}, right credentials`).toBe(200);
    }
  });

  it('while the store cannot be used: 401 without valid credentials, 503 with them', async () => {
    await (
      await startSinkWithToken(() => () => Promise.reject(new Error('unable to open database file')))
    ).apply;
    const down = await answers();
    for (const endpoint of ['webhook', 'read API'] as const) {
      expect(down[endpoint].none.status, endpoint).toBe(401);
      expect(down[endpoint].wrong.status, endpoint).toBe(401);
      expect(down[endpoint].right.status, endpoint).toBe(503);
      expect(down[endpoint].right.retryAfter, endpoint).toBe('5');
    }
    expect(down['history page'].none.status).toBe(401);
  });
});

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1:1', true],
    ['127.9.9.9:1', true],
    ['[::1]:1', true],
    ['localhost:1', true],
    ['0.0.0.0:1', false],
    [':1', false],
    ['[::]:1', false],
    ['192.168.1.1:1', false],
    ['example.com:1', false],
  ])('%s → %s', (addr, expected) => expect(isLoopbackAddress(addr)).toBe(expected));
});

describe('an alert sink whose store is still opening', () => {
  it('answers a notification 503 with Retry-After (retried by Alertmanager), not 404, then stores the next one', async () => {
    let release!: () => void;
    const opened = new Promise<void>((r) => (release = r));
    // The real SQLite store, opened only once the test lets it: the start-up window, held open.
    sink = sinkOpening((real) => async (onIdleError) => (await opened, real.open(onIdleError)));
    const started = sink;
    const apply = sink.apply(parseConfig(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n`, 'vigil.yml', {})).then(() => started.started());
    const url = await serveSink();
    const early = await fetch(`${url}/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(firing) });
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    // Only the webhook is held: other paths pass on to the rest of the server as before.
    expect((await fetch(`${url}/elsewhere`)).status).toBe(404);
    release();
    await apply;
    expect((await post(url, firing)).status).toBe(200);
  });
});
