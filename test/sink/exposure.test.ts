import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../../src/config/listen-address.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/support/logger.js';
import { CATALOG } from '../../src/catalog.js';
import { SnapshotStore } from '../../src/metrics/snapshot-store.js';
import { AlertSinkService } from '../../src/sink/service.js';
import { storeKind } from '../../src/sink/store/open-store.js';
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
  sink = new AlertSinkService({ metrics: new SnapshotStore(CATALOG), log: createLogger('info', 'json', out), listenAddress });
  const config = parseConfig(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n${extra}`, 'vigil.yml', {});
  return { apply: sink.apply(config), logs: () => text };
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
    sink = new AlertSinkService({
      metrics: new SnapshotStore(CATALOG),
      log: createLogger('error', 'json', new PassThrough()),
      listenAddress: '127.0.0.1:9810',
      // The real SQLite store, opened only once the test lets it: the start-up window, held open.
      storeKind: (cfg) => {
        const real = storeKind(cfg);
        return { ...real, open: async (onIdleError) => (await opened, real.open(onIdleError)) };
      },
    });
    const apply = sink.apply(parseConfig(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n`, 'vigil.yml', {}));
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
