import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../../src/upstream/client.js';
import { REDACTED } from '../../../src/upstream/redact.js';

const TOKEN = 's.0123456789abcdefghij';
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A listing of `n` items, the token echoed in the one at `echoAt` (a hostile or broken upstream). */
const listing = (n: number, echoAt = -1) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => ({ ID: `item-${i}`, Name: i === echoAt ? TOKEN : `name-${i}` })));

let server: http.Server;
let base = '';
let answer = '';
/** Where the server cuts its answer into writes, each flushed on its own (so the client reads separate chunks). */
let cuts: number[] = [];

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    void (async () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      let from = 0;
      for (const cut of [...cuts, answer.length]) {
        res.write(answer.slice(from, cut));
        from = cut;
        await sleep(2);
      }
      res.end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = () => new UpstreamClient({ address: base, timeoutMs: 5_000, maxResponseBytes: 4 * 2 ** 20 });

describe('an answer read as bytes', () => {
  it('is digested as it arrives: the digest is the SHA-256 of the whole body, however it was cut', async () => {
    answer = listing(5_000);
    cuts = [1, 70_000, 70_001, 140_000];
    const c = client();
    try {
      const res = await c.bytes({ endpoint: 'list', path: '/list', headers: { 'x-secrets-token': TOKEN } });
      expect(res.body.length).toBe(Buffer.byteLength(answer));
      expect(res.body.digest().toString('hex')).toBe(sha256(Buffer.from(answer)));
      expect(res.body.bytes().toString()).toBe(answer);
    } finally {
      await c.close();
    }
  });

  it("never hands back the request's token, even cut in two between writes, and digests what it hands back", async () => {
    answer = listing(3_000, 2_000);
    const at = answer.indexOf(TOKEN);
    cuts = [at + 7];
    const c = client();
    try {
      const res = await c.bytes({ endpoint: 'list', path: '/list', headers: { 'x-secrets-token': TOKEN } });
      const text = res.body.bytes().toString();
      expect(text).not.toContain(TOKEN);
      expect((JSON.parse(text) as { Name: string }[])[2_000]?.Name).toBe(REDACTED);
      expect(res.body.digest().toString('hex')).toBe(sha256(res.body.bytes()));
    } finally {
      await c.close();
    }
  });
});
