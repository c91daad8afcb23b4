import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../../src/config/listen-address.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/support/logger.js';
import { CATALOG } from '../../src/catalog.js';
import { SnapshotStore } from '../../src/metrics/snapshot-store.js';
import { AlertSinkService } from '../../src/sink/service.js';

let dir: string;
let sink: AlertSinkService | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-exposure-'));
});
afterEach(async () => {
  await sink?.stop();
  sink = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function startSink(listenAddress: string, extra = ''): { apply: Promise<void>; logs: () => string } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  sink = new AlertSinkService({ metrics: new SnapshotStore(CATALOG), log: createLogger('info', 'json', out), listenAddress });
  const config = parseConfig(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n${extra}`, 'vigil.yml', {});
  return { apply: sink.apply(config), logs: () => text };
}

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
    await startSink('127.0.0.1:9810').apply;
  });

  it('starts anywhere with a bearer token', async () => {
    const token = join(dir, 'token');
    writeFileSync(token, 'secret\n');
    await startSink('0.0.0.0:9810', `  bearer_token_file: ${token}\n`).apply;
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
