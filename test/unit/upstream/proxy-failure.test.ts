import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../../src/upstream/client.js';
import { UpstreamError } from '../../../src/upstream/errors.js';
import { startEchoingProxy, type EchoAnswer, type EchoingProxy } from '../../helpers/echoing-proxy.js';

/**
 * L-3: what goes wrong at the proxy is the proxy's (reason `proxy`, named by its URL with the
 * password `xxxxx`, labelled by its origin), so a dead proxy does not page every upstream behind it;
 * an upstream's error relayed through the proxy keeps its own reason.
 */
const PASSWORD = 'pr0xy-fa1lure-s3cret';
const ANSWERS: Record<string, EchoAnswer> = {
  '1001': { status: 502, body: 'json' },
  '1002': { status: 400, body: 'text' },
  '1003': { status: 0, body: 'garbage' },
  '1005': { status: 407, body: 'text' },
  '1006': { status: 403, body: 'text' },
  '1007': { status: 504, body: 'text' },
};
let proxy: EchoingProxy;
/** A loopback port nothing listens on. */
let closedPort = 0;
/** A plain-http server, for an https proxy URL that meets no TLS. */
let plain: http.Server;

beforeAll(async () => {
  proxy = await startEchoingProxy((port) => ANSWERS[port] ?? { status: 500, body: 'text' });
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closedPort = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  plain = http.createServer((_req, res) => res.end('plain'));
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  plain?.closeAllConnections();
  await Promise.all([proxy?.close(), new Promise((r) => plain?.close(r))]);
});

const withPassword = (url: string) => new URL(url.replace(/^(https?):\/\//, `$1://vigil:${PASSWORD}@`));

async function failure(address: string, proxyUrl: URL): Promise<UpstreamError> {
  const c = new UpstreamClient({ address, timeoutMs: 2000, maxResponseBytes: 64 * 1024, proxy: proxyUrl });
  try {
    await c.json({ endpoint: 'probe', path: '/v1/status' });
    throw new Error('answered');
  } catch (e) {
    expect(e).toBeInstanceOf(UpstreamError);
    return e as UpstreamError;
  } finally {
    await c.close();
  }
}

/** A `proxy` failure: named by the redacted URL, labelled by the origin, never the password. */
function expectTheProxys(err: UpstreamError, proxyUrl: URL) {
  expect(err.reason).toBe('proxy');
  expect(err.proxy).toBe(proxyUrl.origin);
  expect(err.message).toContain(`proxy http://vigil:xxxxx@${proxyUrl.host}/`.replace('http:', proxyUrl.protocol));
  expect(err.message).not.toContain(PASSWORD);
}

describe.each([
  ['forwarded (http target)', 'http'],
  ['tunnelled (https target)', 'https'],
])('a failure at the proxy, %s', (_name, scheme) => {
  it('a proxy that refuses connections', async () => {
    const url = withPassword(`http://127.0.0.1:${closedPort}`);
    const err = await failure(`${scheme}://127.0.0.1:1001`, url);
    expectTheProxys(err, url);
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('an https proxy that speaks no TLS', async () => {
    const url = withPassword(`https://127.0.0.1:${(plain.address() as AddressInfo).port}`);
    expectTheProxys(await failure(`${scheme}://127.0.0.1:1001`, url), url);
  });

  it('a proxy that refuses the credentials (407)', async () => {
    const url = withPassword(proxy.url);
    const err = await failure(`${scheme}://127.0.0.1:1005`, url);
    expectTheProxys(err, url);
    expect(err.status).toBe(407);
    expect(err.message).toContain('check the credentials of proxy_url');
  });

  it('a proxy that answers garbage', async () => {
    const url = withPassword(proxy.url);
    expectTheProxys(await failure(`${scheme}://127.0.0.1:1003`, url), url);
  });
});

describe('a CONNECT the proxy answers with an error', () => {
  it('refused (403): the proxy\u2019s', async () => {
    const url = withPassword(proxy.url);
    const err = await failure('https://127.0.0.1:1006', url);
    expectTheProxys(err, url);
    expect(err.message).toContain('answered 403 to CONNECT 127.0.0.1:1006');
  });

  it('refused as a bad request (400): the proxy\u2019s', async () => {
    expect((await failure('https://127.0.0.1:1002', withPassword(proxy.url))).reason).toBe('proxy');
  });

  it.each([
    ['1001', 502],
    ['1007', 504],
  ])('the target out of its reach (%s: %i): the target\u2019s, as a forwarded 5xx is', async (port, status) => {
    const err = await failure(`https://127.0.0.1:${port}`, withPassword(proxy.url));
    expect(err.reason).toBe('http_5xx');
    expect(err.status).toBe(status);
    expect(err.proxy).toBeUndefined();
    expect(err.message).toContain(`could not reach 127.0.0.1:${port}`);
  });
});

describe("an upstream's error relayed by the proxy keeps its own reason", () => {
  it.each([
    ['1001', 'http_5xx'],
    ['1002', 'http_4xx'],
    ['1006', 'http_4xx'],
  ])('forwarded request answered from port %s: %s', async (port, reason) => {
    const err = await failure(`http://127.0.0.1:${port}`, withPassword(proxy.url));
    expect(err.reason).toBe(reason);
    expect(err.proxy).toBeUndefined();
  });
});
