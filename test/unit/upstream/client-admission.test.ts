import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteBudget, type Permit } from '../../../src/support/byte-budget.js';
import { UpstreamClient, type ClientOptions } from '../../../src/upstream/client.js';
import { UpstreamError } from '../../../src/upstream/errors.js';

const TOKEN = 's.0123456789abcdefghij';
const BODY = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => `item-${i}`) });

let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '';
    if (path === '/silent') return; // never a header: an upstream that hangs
    if (path === '/stall') return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 }).write('{"items":['); // stalls mid-body
    if (path === '/chunked') return res.writeHead(200, { 'content-type': 'application/json' }).end(BODY);
    if (path === '/error') return res.writeHead(500, { 'content-type': 'application/json' }).end('{"errors":["down"]}');
    if (path === '/echo') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: TOKEN, pad: 'x'.repeat(200) }));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) }).end(BODY);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** A client whose answers take turns of `budget`; `asked` records the length each turn was asked for. */
async function withClient(budget: ByteBudget, run: (c: UpstreamClient, admit: Admit) => Promise<void>, opts: Partial<ClientOptions> = {}) {
  const asked: (number | undefined)[] = [];
  const admit: Admit = Object.assign((declared: number | undefined, signal: AbortSignal) => (asked.push(declared), budget.take(declared ?? 10, signal)), {
    asked,
  });
  const c = new UpstreamClient({ address: base, timeoutMs: 2_000, maxResponseBytes: 1 << 20, ...opts });
  try {
    await run(c, admit);
  } finally {
    await c.close();
  }
}
type Admit = ((declared: number | undefined, signal: AbortSignal) => Permit | Promise<Permit>) & { asked: (number | undefined)[] };

describe('an answer read in its turn of the answers in flight', () => {
  it('asks for its turn with the length its headers declare, and holds it until the body is released', async () => {
    const budget = new ByteBudget(1 << 20);
    await withClient(budget, async (c, admit) => {
      const res = await c.bytes({ endpoint: 'list', path: '/list', admit });
      expect(admit.asked).toEqual([Buffer.byteLength(BODY)]);
      expect(budget.held).toBe(Buffer.byteLength(BODY));
      res.body.release();
      expect(budget.held).toBe(0);
    });
  });

  it('counts an answer sent chunked as guessed until read, then as the bytes it read', async () => {
    const budget = new ByteBudget(1 << 20);
    await withClient(budget, async (c, admit) => {
      const res = await c.bytes({ endpoint: 'list', path: '/chunked', admit });
      expect(admit.asked).toEqual([undefined]);
      expect(budget.held).toBe(Buffer.byteLength(BODY));
      res.body.release();
      expect(budget.held).toBe(0);
    });
  });

  it('asks for no turn for an upstream that never answers: it times out and holds nothing', async () => {
    const budget = new ByteBudget(1 << 20);
    await withClient(
      budget,
      async (c, admit) => {
        const err = await c.bytes({ endpoint: 'list', path: '/silent', admit }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UpstreamError);
        expect((err as UpstreamError).reason).toBe('timeout');
        expect(admit.asked).toEqual([]);
        expect(budget.held).toBe(0);
      },
      { timeoutMs: 200 },
    );
  });

  it('holds its turn while a body stalls after its headers, and gives it back when the time is up', async () => {
    const budget = new ByteBudget(1 << 20);
    await withClient(
      budget,
      async (c, admit) => {
        const stalled = c.bytes({ endpoint: 'list', path: '/stall', admit }).catch((e: unknown) => e);
        while (admit.asked.length === 0) await new Promise((r) => setTimeout(r, 10));
        expect(budget.held).toBe(1000);
        const err = await stalled;
        expect((err as UpstreamError).reason).toBe('timeout');
        expect(budget.held).toBe(0);
      },
      { timeoutMs: 200 },
    );
  });

  it("does not count the wait for its turn as the upstream's time: no timeout, and the request's duration leaves it out", async () => {
    const budget = new ByteBudget(100);
    const blocker = await budget.take(100);
    const observed: number[] = [];
    const waited: number[] = [];
    await withClient(
      budget,
      async (c, admit) => {
        const waitMs = 600;
        const delayed = Object.assign(
          (declared: number | undefined, signal: AbortSignal) => {
            setTimeout(() => blocker.release(), waitMs);
            return admit(declared, signal);
          },
          { asked: admit.asked },
        );
        const res = await c.bytes({ endpoint: 'list', path: '/list', admit: delayed });
        expect(res.body.bytes().toString()).toBe(BODY);
        res.body.release();
        // the timeout (300 ms) is shorter than the wait (600 ms): the answer came, so the wait was not
        // timed; the duration observed is under the timeout, so it leaves the wait out, which is counted apart.
        // Bounds, not clocks compared: a timer may fire a millisecond early.
        expect(observed).toHaveLength(1);
        expect((observed[0] as number) * 1000).toBeLessThan(300);
        expect((waited[0] as number) * 1000).toBeGreaterThan(300);
      },
      {
        timeoutMs: 300,
        observe: (_e, _code, seconds, _t, waitedSeconds) => (observed.push(seconds), waited.push(waitedSeconds)),
      },
    );
  });

  it('gives its turn back when the answer is an error, so the next answers are not kept out', async () => {
    const budget = new ByteBudget(1 << 20);
    await withClient(budget, async (c, admit) => {
      await expect(c.bytes({ endpoint: 'list', path: '/error', admit })).rejects.toThrow('HTTP 500');
      expect(admit.asked).toHaveLength(1);
      expect(budget.held).toBe(0);
    });
  });

  it('gives its turn back when the body is larger than the target allows', async () => {
    const budget = new ByteBudget(1 << 20);
    await withClient(
      budget,
      async (c, admit) => {
        await expect(c.bytes({ endpoint: 'list', path: '/chunked', admit })).rejects.toThrow('larger than 64 bytes');
        expect(budget.held).toBe(0);
      },
      { maxResponseBytes: 64 },
    );
  });

  it('keeps its turn with the redacted copy it hands back in place of a body that echoed the token', async () => {
    const budget = new ByteBudget(1 << 20);
    await withClient(budget, async (c, admit) => {
      const res = await c.bytes({ endpoint: 'echo', path: '/echo', headers: { 'x-secrets-token': TOKEN }, admit });
      expect(res.body.bytes().toString()).not.toContain(TOKEN);
      expect(budget.held).toBeGreaterThan(200);
      res.body.release();
      expect(budget.held).toBe(0);
    });
  });

  it("stops waiting for its turn when the caller's signal aborts, and holds nothing", async () => {
    const budget = new ByteBudget(100);
    const blocker = await budget.take(100);
    await withClient(budget, async (c, admit) => {
      const controller = new AbortController();
      const asking = (declared: number | undefined, signal: AbortSignal) => {
        setTimeout(() => controller.abort(new Error('the run was stopped')), 50);
        return admit(declared, signal);
      };
      await expect(c.bytes({ endpoint: 'list', path: '/list', admit: asking, signal: controller.signal })).rejects.toThrow();
      expect(budget.waiting).toBe(0);
      blocker.release();
      expect(budget.held).toBe(0);
    });
  });

  it('waits for no turn of the event loop with a body the caller knows again, and gives its turn of the answers back at once', async () => {
    const budget = new ByteBudget(1 << 20);
    let turnsTaken = 0;
    const beforeDecode = () => (turnsTaken++, Promise.resolve());
    await withClient(
      budget,
      async (c, admit) => {
        const fresh = await c.bytes({ endpoint: 'list', path: '/list', admit, knownClean: () => false });
        expect(turnsTaken).toBe(1);
        fresh.body.release();
        const known = await c.bytes({ endpoint: 'list', path: '/list', admit, knownClean: () => true });
        expect(turnsTaken).toBe(1);
        expect(known.body.cleanOf).toBeDefined();
        known.body.release();
        expect(budget.held).toBe(0);
      },
      { beforeDecode },
    );
  });
});
