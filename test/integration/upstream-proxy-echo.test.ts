import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { startEchoingProxy, type EchoAnswer, type EchoingProxy } from '../helpers/echoing-proxy.js';
import { runVigilAsync } from '../helpers/process.js';
import { NEVER } from '../helpers/schedules.js';

/**
 * H-3 through the whole daemon: targets behind a proxy that answers every forwarded request and
 * every CONNECT with an error (or garbage) echoing Proxy-Authorization and the credentials in it.
 * The echo reaches vigil; the password, `user:password` and its base64 reach none of the places an
 * error is shown: the log, /api/v1/targets, /api/v1/estate, the status page, /metrics and
 * `--config.check.probe`.
 */
const USER = 'vigil';
const PASSWORD = 'pr0xy-ech0ed-s3cret';
const FORMS = [PASSWORD, `${USER}:${PASSWORD}`, Buffer.from(`${USER}:${PASSWORD}`).toString('base64')];

/** By the port of each target's address (nothing listens there: the proxy answers for it). */
const ANSWERS: Record<string, EchoAnswer> = {
  '1001': { status: 502, body: 'json' },
  '1002': { status: 400, body: 'text' },
  '1003': { status: 0, body: 'garbage' },
};
const TARGETS = [
  ['forwarded-json', 'http://127.0.0.1:1001'],
  ['forwarded-text', 'http://127.0.0.1:1002'],
  ['forwarded-garbage', 'http://127.0.0.1:1003'],
  ['tunnel-text', 'https://127.0.0.1:1002'],
  ['tunnel-garbage', 'https://127.0.0.1:1003'],
] as const;

let proxy: EchoingProxy;
let vigil: TestDaemon;
let yaml = '';

beforeAll(async () => {
  proxy = await startEchoingProxy((port) => ANSWERS[port] ?? { status: 500, body: 'text' });
  const proxyUrl = proxy.url.replace('http://', `http://${USER}:${PASSWORD}@`);
  yaml =
    'agents:\n' +
    TARGETS.map(([name, address]) => `  - { name: ${name}, address: "${address}", schedule: "${NEVER}", timeout: 2s, proxy_url: "${proxyUrl}" }\n`).join('');
  vigil = await startTestDaemon(yaml, { settle: true });
}, 60_000);

afterAll(async () => {
  await vigil?.close();
  await proxy?.close();
});

const get = async (path: string) => (await fetch(`${vigil.url}${path}`)).text();

const expectNone = (where: string, text: string) => {
  for (const form of FORMS) expect(text.includes(form), `${where} shows ${form}`).toBe(false);
};

describe('a proxy that echoes its credentials, seen through the daemon', () => {
  it('was asked for every target, and its echo reached vigil', async () => {
    for (const [, address] of TARGETS) expect(proxy.asked.get(new URL(address).host) ?? 0).toBeGreaterThan(0);
    expect(await get('/api/v1/targets')).toContain('[REDACTED]');
  });

  it('shows the password in no log line', () => {
    expect(vigil.rawLogs()).toContain('collection failed');
    expectNone('the log', vigil.rawLogs());
  });

  it('shows it nowhere on the HTTP surface', async () => {
    for (const path of ['/api/v1/targets', '/api/v1/estate', '/', '/metrics']) {
      const text = await get(path);
      expect(text).toContain('forwarded-json');
      expectNone(path, text);
    }
  });

  it('shows it nowhere in --config.check.probe', async () => {
    const r = await runVigilAsync([`--config.file=${tempFile('vigil.yml', yaml)}`, '--config.check', '--config.check.probe']);
    const out = `${r.stdout}\n${r.stderr}`;
    expect(out).toContain('forwarded-json');
    expect(out).toContain('[REDACTED]');
    expectNone('the probe', out);
  }, 60_000);
});
