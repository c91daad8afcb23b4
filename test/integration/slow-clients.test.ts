import type http from 'node:http';
import net from 'node:net';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpGuard } from '../../src/server/guard.js';
import { DEFAULT_LIMITS, listen, type RunningHttp, type ServerLimits } from '../../src/server/http-server.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';

/** Clients that hold connections open, trickle headers or bodies, or send bodies meant to be refused. */
let server: RunningHttp | undefined;
let vigil: TestDaemon | undefined;
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  await vigil?.close();
  server = undefined;
  vigil = undefined;
});

const ok: http.RequestListener = (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');

async function start(limits: Partial<ServerLimits> = {}, guard?: HttpGuard): Promise<{ port: number; url: string }> {
  server = await listen(ok, '127.0.0.1:0', { limits: { ...DEFAULT_LIMITS, ...limits }, ...(guard ? { guard } : {}) });
  return { port: Number(new URL(server.url).port), url: server.url };
}

/** A raw connection: what it received, and whether the server closed it. */
function connect(port: number, send = ''): Promise<{ socket: net.Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    let got = '';
    socket.on('data', (c: Buffer) => (got += c.toString('latin1')));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      if (send) socket.write(send);
      resolve({ socket, received: () => got, closed });
    });
    socket.once('error', reject);
  });
}

/** Starts a trickle: one header byte every 200 ms, never finishing. */
function trickle(socket: net.Socket): void {
  socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  const t = setInterval(() => (socket.destroyed ? clearInterval(t) : socket.write('a')), 200);
  t.unref();
}

describe('server limits', () => {
  it('still answers a scrape while 500 idle and 50 trickling connections are open', async () => {
    const { port, url } = await start();
    for (let i = 0; i < 500; i++) await connect(port);
    for (let i = 0; i < 50; i++) trickle((await connect(port)).socket);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok\n');
  }, 60_000);

  it('past max connections closes the oldest idle connection, so a scraper still gets in', async () => {
    const { port, url } = await start({ maxConnections: 20 });
    const held = [];
    for (let i = 0; i < 40; i++) held.push(await connect(port));
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    // The first 20 idle connections (and then more, to make room for the scrape) were closed.
    await Promise.all(held.slice(0, 20).map((h) => h.closed));
  }, 60_000);

  it('closes a connection that trickles its headers past the header timeout', async () => {
    const headerTimeoutMs = 500;
    const { port } = await start({ headerTimeoutMs });
    const started = Date.now();
    const c = await connect(port);
    trickle(c.socket);
    await c.closed;
    // Node's 408 and nothing else (no route ever saw the request), and not before the header
    // timeout: a byte every 200 ms would have kept any idle timeout from firing.
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[^]*\r\n\r\n$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(headerTimeoutMs - 50);
  }, 30_000);

  it('closes a connection that trickles its body past the request timeout', async () => {
    // The request timeout well past the header timeout, so that which of the two ended it shows.
    const requestTimeoutMs = 2000;
    const { port } = await start({ requestTimeoutMs, headerTimeoutMs: 500 });
    const started = Date.now();
    const c = await connect(port, 'POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n');
    let sent = 0;
    const t = setInterval(() => (c.socket.destroyed ? clearInterval(t) : (c.socket.write('a'), sent++)), 100);
    await c.closed;
    const after = Date.now() - started;
    clearInterval(t);
    // The headers were complete (the handler answered 200 at once), so no header timeout is to blame;
    // then the body was still short of its length when the server gave up with Node's 408.
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 [^]*\r\n\r\nHTTP\/1\.1 408 Request Timeout\r\nConnection: close\r\n\r\n$/);
    expect(sent).toBeLessThan(1000);
    // Not before the request timeout (the header timeout would have come at about 500 ms), and
    // because of it: long before the body could have ended (100 s) or this test's own limit.
    expect(after).toBeGreaterThanOrEqual(requestTimeoutMs - 50);
    expect(after).toBeLessThan(requestTimeoutMs * 5);
  }, 30_000);

  it('answers 431 to headers over the limit', async () => {
    const { url } = await start({ maxHeaderBytes: 1024 });
    expect((await fetch(`${url}/metrics`, { headers: { 'x-big': 'a'.repeat(4096) } })).status).toBe(431);
  });

  it('answers 401 without reading the body, and closes the connection', async () => {
    const guard = new HttpGuard({ headers: {}, users: new Map([['u', bcrypt.hashSync('p', 4)]]) });
    const { port } = await start({}, guard);
    // 50 MB announced, 1 KiB sent: the answer must come anyway, and the connection end.
    const c = await connect(
      port,
      `POST /webhook/alertmanager HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n${'a'.repeat(1024)}`,
    );
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(c.received()).toMatch(/connection: close/i);
  }, 30_000);
});

describe('Expect: 100-continue', () => {
  const ask = (auth: string) =>
    `POST /webhook/alertmanager HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n${auth}\r\n`;

  it('a refused request gets its 401 without a go-ahead, so its body is never sent', async () => {
    const guard = new HttpGuard({ headers: {}, users: new Map([['u', bcrypt.hashSync('p', 4)]]) });
    const { port } = await start({}, guard);
    const c = await connect(port, ask(''));
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(c.received()).not.toContain('100 Continue');
  }, 30_000);

  it('an authenticated one gets the go-ahead', async () => {
    const guard = new HttpGuard({ headers: {}, users: new Map([['u', bcrypt.hashSync('p', 4)]]) });
    const { port } = await start({}, guard);
    const c = await connect(port, ask(`Authorization: Basic ${Buffer.from('u:p').toString('base64')}\r\n`));
    await waitFor('the go-ahead', async () => (c.received().startsWith('HTTP/1.1 100 Continue') ? true : undefined), 10_000, { everyMs: 50 });
  }, 30_000);
});

describe('webhook bodies', () => {
  const startSink = async (yaml: string) => {
    vigil = await startTestDaemon(`alert_sink:\n  store: { path: ":memory:" }\n${yaml}`);
    return Number(new URL(vigil.url).port);
  };

  it('answers 413 to a chunked body as soon as it passes the limit, without waiting for its end', async () => {
    const port = await startSink('  body_limit: 2KiB\n');
    const chunk = 'a'.repeat(4096);
    const c = await connect(
      port,
      `POST /webhook/alertmanager HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    );
    // The body never ends (no last chunk): the answer and the close must come anyway.
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.received()).toContain('body exceeds the limit of 2048 bytes');
  }, 30_000);

  it(`answers 503 before reading a body when max_in_flight notifications are held`, async () => {
    const port = await startSink('  max_in_flight: 2\n');
    const slow = `POST /webhook/alertmanager HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`;
    await connect(port, slow);
    await connect(port, slow);
    // Both are now reading (their bodies are stuck at one byte of a hundred).
    await waitFor('the slots to be taken', async () => ((await post(port)).startsWith('HTTP/1.1 503') ? true : undefined), 10_000);
    expect(await post(port)).toContain('the sink holds 2 notifications (200 bytes) not yet stored, at its bound');
  }, 30_000);

  /** One complete request on a new connection; what came back. */
  async function post(port: number): Promise<string> {
    const c = await connect(
      port,
      `POST /webhook/alertmanager HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    await c.closed;
    return c.received();
  }
});
