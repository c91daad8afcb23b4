import { describe, expect, it } from 'vitest';
import { listen } from '../../src/server.js';

/** Stopping answers the requests in flight instead of cutting them (SIGTERM under load, issue 17). */

describe('closing the HTTP server', () => {
  it('lets a request in flight finish, refuses new connections, and then resolves', async () => {
    let started!: () => void;
    const inHandler = new Promise<void>((r) => (started = r));
    const http = await listen((_req, res) => {
      started();
      setTimeout(() => res.end('done'), 300);
    }, '127.0.0.1:0');
    const inFlight = fetch(`${http.url}/slow`).then(async (r) => [r.status, await r.text()]);
    await inHandler;
    const closed = http.close();
    expect(await inFlight).toEqual([200, 'done']);
    await closed;
    await expect(fetch(`${http.url}/late`)).rejects.toThrow();
  });
});
