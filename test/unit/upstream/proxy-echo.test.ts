import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../../src/upstream/client.js';
import { proxySecrets } from '../../../src/upstream/proxy-choice.js';
import { UpstreamError } from '../../../src/upstream/errors.js';
import { startEchoingProxy, type EchoAnswer, type EchoingProxy } from '../../helpers/echoing-proxy.js';

/**
 * H-3: a proxy, or the hop behind it, that echoes Proxy-Authorization in what it answers must not
 * get the proxy's password into an error message (what logs, /api/v1/targets, the status page and
 * the probe show), whether the request was forwarded (http targets) or tunnelled (https targets).
 */
const USER = 'vigil';
const PASSWORD = 'pr0xy-p@ss%w0rd';
/** The forms that must never show, the password alone included (it is long enough to be hunted). */
const forms = (user: string, password: string) => [
  password,
  `${user}:${password}`,
  Buffer.from(`${user}:${password}`).toString('base64'),
  encodeURIComponent(password),
  `${user}:${encodeURIComponent(password)}`,
];

/** Per port of the target's address: what the proxy answers for it. */
const ANSWERS: Record<string, EchoAnswer> = {
  '1001': { status: 502, body: 'json' },
  '1002': { status: 400, body: 'text' },
  '1003': { status: 0, body: 'garbage' },
  '1004': { status: 200, body: 'json' },
};
let proxy: EchoingProxy;

beforeAll(async () => {
  proxy = await startEchoingProxy((port) => ANSWERS[port] ?? { status: 500, body: 'text' });
});
afterAll(() => proxy?.close());

const proxyUrl = (user: string, password: string) => new URL(proxy.url.replace('http://', `http://${user}:${encodeURIComponent(password)}@`));

/** The error a request through the echoing proxy fails with (a success is a failure of the test). */
async function failure(address: string, user = USER, password = PASSWORD): Promise<UpstreamError> {
  const c = new UpstreamClient({ address, timeoutMs: 2000, maxResponseBytes: 64 * 1024, proxy: proxyUrl(user, password) });
  try {
    const res = await c.json({ endpoint: 'probe', path: '/v1/status' });
    throw new Error(`answered: ${JSON.stringify(res.body)}`);
  } catch (e) {
    expect(e).toBeInstanceOf(UpstreamError);
    return e as UpstreamError;
  } finally {
    await c.close();
  }
}

const expectNone = (text: string, user = USER, password = PASSWORD) => {
  for (const f of forms(user, password)) expect(text).not.toContain(f);
};

describe('a proxy that echoes the credentials of a forwarded request (http target)', () => {
  it('502 with a JSON error body: the echo is shown, the credentials redacted', async () => {
    const err = await failure('http://127.0.0.1:1001');
    expect(err.status).toBe(502);
    expect(err.message).toContain('[REDACTED]');
    expect(err.message).toContain('denied');
    expectNone(err.message);
  });

  it('400 with a plain-text body', async () => {
    const err = await failure('http://127.0.0.1:1002');
    expect(err.status).toBe(400);
    expect(err.message).toContain('[REDACTED]');
    expectNone(err.message);
  });

  it('garbage instead of HTTP', async () => {
    expectNone((await failure('http://127.0.0.1:1003')).message);
  });

  it('an echo in a successful answer is redacted before anything reads it', async () => {
    const c = new UpstreamClient({ address: 'http://127.0.0.1:1004', timeoutMs: 2000, maxResponseBytes: 64 * 1024, proxy: proxyUrl(USER, PASSWORD) });
    const res = await c.json({ endpoint: 'probe', path: '/v1/status' });
    await c.close();
    const shown = JSON.stringify(res.body);
    expect(shown).toContain('[REDACTED]');
    expectNone(shown);
  });
});

describe('a proxy that echoes the credentials of a CONNECT (https target)', () => {
  it('502 with a JSON error body', async () => {
    const err = await failure('https://127.0.0.1:1001');
    expect(err.message).toContain('127.0.0.1:1001: it answered 502 to CONNECT');
    expectNone(err.message);
  });

  it('400 with a plain-text body', async () => {
    expectNone((await failure('https://127.0.0.1:1002')).message);
  });

  it('garbage instead of HTTP', async () => {
    expectNone((await failure('https://127.0.0.1:1003')).message);
  });
});

describe('the forms of the proxy credentials hunted (proxySecrets)', () => {
  it('has every form, decoded and as written in proxy_url, longest first', () => {
    const s = proxySecrets(new URL(`http://${USER}:${encodeURIComponent(PASSWORD)}@proxy.example:3128`));
    const b64 = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    expect(s).toEqual(expect.arrayContaining([`Basic ${b64}`, b64, ...forms(USER, PASSWORD)]));
    expect(s.map((x) => x.length)).toEqual([...s.map((x) => x.length)].sort((a, b) => b - a));
  });

  it('a short password: its longer forms are hunted, not the password alone', () => {
    const s = proxySecrets(new URL('http://vigil:pw@proxy.example:3128'));
    expect(s).toContain('vigil:pw');
    expect(s).toContain(Buffer.from('vigil:pw').toString('base64'));
    expect(s).not.toContain('pw');
  });

  it('none without a password', () => {
    expect(proxySecrets(new URL('http://proxy.example:3128'))).toEqual([]);
    expect(proxySecrets(new URL('http://vigil@proxy.example:3128'))).toEqual([]);
  });

  it('a short password does not show through a forwarded echo in its longer forms', async () => {
    const err = await failure('http://127.0.0.1:1001', 'vigil', 'pw');
    expect(err.message).toContain('[REDACTED]');
    for (const f of ['vigil:pw', Buffer.from('vigil:pw').toString('base64')]) expect(err.message).not.toContain(f);
  });
});
