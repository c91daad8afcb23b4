import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../../src/upstream/client.js';
import { UpstreamError } from '../../../src/upstream/errors.js';

/**
 * An upstream that closes the connection under a request instead of answering it: the second
 * request it gets (`second`), as when its idle timeout and a request on a kept-alive connection
 * cross (the client cannot tell one connection from another here), or every request (`always`).
 */
async function closingServer(closes: 'second' | 'always'): Promise<{ url: string; requests: () => number; stop: () => Promise<void> }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    if (closes === 'always' || requests === 2) return req.socket.destroy();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return { url, requests: () => requests, stop };
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function clientOf(closes: 'second' | 'always') {
  const server = await closingServer(closes);
  const observed: string[] = [];
  const retried: string[] = [];
  const client = new UpstreamClient({
    address: server.url,
    timeoutMs: 2_000,
    maxResponseBytes: 1024,
    observe: (endpoint, code) => observed.push(`${endpoint} ${code}`),
    onRetry: (endpoint, err) => retried.push(`${endpoint} ${err.reason}`),
  });
  stops.push(() => client.close(), server.stop);
  return { client, server, observed, retried };
}

describe('a connection closed under a request before any answer', () => {
  it('sends a GET once more on another connection, and counts the attempt that failed', async () => {
    const { client, server, observed, retried } = await clientOf('second');
    expect((await client.json({ endpoint: 'first', path: '/' })).body).toEqual({ ok: true });
    // Closed under the request: the answer comes on another connection.
    expect((await client.json({ endpoint: 'second', path: '/' })).body).toEqual({ ok: true });
    expect(server.requests()).toBe(3);
    expect(observed).toEqual(['first 200', 'second none', 'second 200']);
    expect(retried).toEqual(['second connect']);
  });

  it('sends it once more only: a second close is the upstream failing', async () => {
    const { client, server, observed } = await clientOf('always');
    const failed = await client.json({ endpoint: 'closed', path: '/' }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(UpstreamError);
    expect(failed).toMatchObject({ reason: 'connect' });
    expect(server.requests()).toBe(2);
    expect(observed).toEqual(['closed none', 'closed none']);
  });

  it('never sends a POST again', async () => {
    const { client, server } = await clientOf('second');
    await client.json({ endpoint: 'first', path: '/' });
    const failed = await client.json({ endpoint: 'post', method: 'POST', path: '/', body: {} }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ reason: 'connect' });
    expect(server.requests()).toBe(2);
  });
});
