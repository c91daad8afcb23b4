import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { UpstreamClient } from '../../src/upstream/client.js';

/**
 * A loopback upstream for the tests of one file, answering with `handle`, and vigil's client to it:
 * started before the file's tests, closed after them. `client()` is valid inside the tests.
 */
export function loopbackUpstream(handle: http.RequestListener): { client: () => UpstreamClient } {
  let server: http.Server | undefined;
  let client: UpstreamClient | undefined;
  beforeAll(async () => {
    const s = (server = http.createServer(handle));
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    client = new UpstreamClient({ address: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, timeoutMs: 2000, maxResponseBytes: 1 << 20 });
  });
  afterAll(async () => {
    await client?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });
  return {
    client: () => {
      if (!client) throw new Error('the loopback upstream is not started');
      return client;
    },
  };
}
