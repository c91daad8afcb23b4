import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../../src/upstream/client.js';
import { retryAfterMs } from '../../../src/upstream/retry.js';
import { UpstreamError, errorBodyMessage } from '../../../src/upstream/errors.js';
import { backoffOn, firstOf, waitOnRateLimit } from '../../../src/upstream/retry.js';
import { upstreamFailure } from '../../helpers/failures.js';
import { waitFor } from '../../helpers/wait.js';

/** A loopback server whose answer per path is set by each test. */
let server: http.Server;
let base = '';
const answers = new Map<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>();
const seen: http.IncomingMessage[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req);
    const a = answers.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (a) a(req, res);
    else res.writeHead(404).end('{"errors":["no route"]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_req: http.IncomingMessage, res: http.ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));

function client(extra: Partial<ConstructorParameters<typeof UpstreamClient>[0]> = {}) {
  const observed: string[] = [];
  const c = new UpstreamClient({
    address: base,
    timeoutMs: 300,
    maxResponseBytes: 1024,
    observe: (endpoint, code) => observed.push(`${endpoint} ${code}`),
    ...extra,
  });
  return { c, observed };
}

describe('upstream client', () => {
  it('returns parsed JSON and observes the request', async () => {
    answers.set('/ok', json(200, { data: { a: 1 } }));
    const { c, observed } = client();
    const res = await c.json({ endpoint: 'ok', path: '/ok', headers: { 'x-secrets-token': 't' } });
    expect(res.body).toEqual({ data: { a: 1 } });
    expect(observed).toEqual(['ok 200']);
    expect(seen.at(-1)?.headers['x-secrets-token']).toBe('t');
    await c.close();
  });

  it('keeps a path prefix of the address', async () => {
    answers.set('/prefix/v1/x', json(200, {}));
    const c = new UpstreamClient({ address: `${base}/prefix/`, timeoutMs: 300, maxResponseBytes: 1024 });
    await expect(c.json({ endpoint: 'x', path: '/v1/x' })).resolves.toMatchObject({ status: 200 });
    await c.close();
  });

  it('reads the {"errors":[...]} body into the message of a 4xx/5xx', async () => {
    answers.set('/sealed', json(503, { errors: ['service is sealed'] }));
    const { c } = client();
    const err = await upstreamFailure(c.json({ endpoint: 'dr/status', path: '/sealed' }));
    expect(err).toMatchObject({ reason: 'http_5xx', status: 503, message: 'dr/status: HTTP 503: service is sealed' });
    answers.set('/forbidden', json(403, { errors: ['permission denied'] }));
    expect(await upstreamFailure(c.json({ endpoint: 'e', path: '/forbidden' }))).toMatchObject({
      reason: 'http_4xx',
      message: 'e: HTTP 403: permission denied',
    });
    await c.close();
  });

  it('classifies 429 as rate_limited and reads how long to wait', async () => {
    answers.set('/limited', json(429, { errors: [{ status: 429, title: 'Too Many Requests' }] }, { 'x-ratelimit-reset': '0.25', 'retry-after': '1' }));
    const { c } = client();
    const err = await upstreamFailure(c.json({ endpoint: 'teams', path: '/limited' }));
    expect(err).toMatchObject({ reason: 'rate_limited', retryAfterMs: 250, message: 'teams: HTTP 429: Too Many Requests' });
    await c.close();
  });

  it('treats a listed status as data (an unhealthy agent answers 500 with its body)', async () => {
    answers.set('/health', json(500, { server: { ok: false, message: 'no leader' } }));
    const { c } = client();
    await expect(c.json({ endpoint: 'health', path: '/health', dataStatuses: [500] })).resolves.toMatchObject({ status: 500, body: { server: { ok: false } } });
    await c.close();
  });

  it('keeps a listed status an HTTP error when its body is not JSON', async () => {
    answers.set('/health-text', (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error'));
    const { c } = client();
    const err = await upstreamFailure(c.json({ endpoint: 'health', path: '/health-text', dataStatuses: [500] }));
    expect(err).toMatchObject({ reason: 'http_5xx', status: 500, message: 'health: HTTP 500: internal error' });
    await c.close();
  });

  it('times out a hung upstream with reason timeout', async () => {
    answers.set('/hang', () => undefined);
    const { c, observed } = client();
    const err = await upstreamFailure(c.json({ endpoint: 'hang', path: '/hang' }));
    expect(err.reason).toBe('timeout');
    expect(err.message).toContain('300 ms');
    expect(observed).toEqual(['hang none']);
    await c.close();
  });

  it('times out a body that stalls after the headers', async () => {
    answers.set('/stall', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":');
    });
    const { c } = client();
    expect((await upstreamFailure(c.json({ endpoint: 'stall', path: '/stall' }))).reason).toBe('timeout');
    await c.close();
  });

  it("stops when the caller's signal aborts, and leaves nothing behind on that long-lived signal", async () => {
    let hanging = false;
    answers.set('/hang', () => void (hanging = true));
    answers.set('/ok', json(200, {}));
    const { c } = client({ timeoutMs: 5_000 });
    const run = new AbortController();
    for (let i = 0; i < 20; i++) await c.json({ endpoint: 'ok', path: '/ok', signal: run.signal });
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    const hung = c.json({ endpoint: 'hang', path: '/hang', signal: run.signal });
    await waitFor('the request to reach the server', async () => (hanging ? true : undefined), 5_000, { everyMs: 10 });
    run.abort();
    // not the attempt's own 5 s timeout running out
    expect((await upstreamFailure(hung)).message).not.toContain('within 5000 ms');
    await c.close();
  });

  it('refuses a body over the size cap, declared or streamed', async () => {
    answers.set('/big', json(200, { data: 'x'.repeat(5000) }));
    answers.set('/big-chunked', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":"');
      res.write('y'.repeat(4000));
      res.end('"}');
    });
    const { c } = client();
    expect(await upstreamFailure(c.json({ endpoint: 'big', path: '/big' }))).toMatchObject({
      reason: 'too_large',
      message: 'big: response larger than 1024 bytes',
    });
    expect((await upstreamFailure(c.json({ endpoint: 'big', path: '/big-chunked' }))).reason).toBe('too_large');
    await c.close();
  });

  it('reports garbage as decode', async () => {
    answers.set('/garbage', json(200, '{"data": <<<'));
    const { c } = client();
    expect((await upstreamFailure(c.json({ endpoint: 'g', path: '/garbage' }))).reason).toBe('decode');
    await c.close();
  });

  it('reports a refused connection as connect', async () => {
    const c = new UpstreamClient({ address: 'http://127.0.0.1:1', timeoutMs: 300, maxResponseBytes: 1024 });
    expect((await upstreamFailure(c.json({ endpoint: 'x', path: '/' }))).reason).toBe('connect');
    await c.close();
  });

  it('retries 412 with backoff until it succeeds, within a bound', async () => {
    let calls = 0;
    answers.set('/eventually', (req, res) => {
      calls += 1;
      if (calls <= 2) json(412, { errors: ['not yet consistent'] })(req, res);
      else json(200, { data: {} })(req, res);
    });
    const retried: string[] = [];
    const { c, observed } = client({
      retry: backoffOn([412], { maxRetries: 4, baseMs: 5, capMs: 20 }),
      onRetry: (e, err) => retried.push(`${e} ${err.status}`),
    });
    await expect(c.json({ endpoint: 'p', path: '/eventually' })).resolves.toMatchObject({ status: 200 });
    expect(calls).toBe(3);
    expect(retried).toEqual(['p 412', 'p 412']);
    expect(observed).toEqual(['p 412', 'p 412', 'p 200']);
    await c.close();
  });

  it('gives up on 412 after the bound', async () => {
    let calls = 0;
    answers.set('/never', (req, res) => {
      calls += 1;
      json(412, { errors: ['not yet consistent'] })(req, res);
    });
    const { c } = client({ retry: backoffOn([412], { maxRetries: 2, baseMs: 1, capMs: 2 }) });
    expect(await upstreamFailure(c.json({ endpoint: 'p', path: '/never' }))).toMatchObject({ reason: 'http_4xx', status: 412 });
    expect(calls).toBe(3);
    await c.close();
  });

  it('does not retry other statuses', async () => {
    let calls = 0;
    answers.set('/500', (req, res) => {
      calls += 1;
      json(500, { errors: ['boom'] })(req, res);
    });
    const { c } = client({ retry: backoffOn([412], { maxRetries: 4, baseMs: 1, capMs: 2 }) });
    await upstreamFailure(c.json({ endpoint: 'p', path: '/500' }));
    expect(calls).toBe(1);
    await c.close();
  });

  it('waits what a 429 advertised, then succeeds', async () => {
    let calls = 0;
    answers.set('/rl', (req, res) => {
      calls += 1;
      if (calls === 1) json(429, { errors: ['slow down'] }, { 'x-ratelimit-reset': '0.05' })(req, res);
      else json(200, {})(req, res);
    });
    const { c } = client({ retry: waitOnRateLimit({ maxRetries: 3, defaultMs: 1000, maxWaitMs: 5000 }) });
    const started = Date.now();
    await c.json({ endpoint: 'rl', path: '/rl' });
    expect(calls).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    await c.close();
  });
});

describe('client hooks', () => {
  it('shows every answer, error statuses included, with its headers', async () => {
    answers.set('/hdr-ok', json(200, {}, { 'x-ratelimit-limit': '30' }));
    answers.set('/hdr-429', json(429, { errors: ['slow down'] }, { 'x-ratelimit-limit': '30' }));
    const seenAnswers: string[] = [];
    const { c } = client({ onResponse: (endpoint, status, headers) => seenAnswers.push(`${endpoint} ${status} ${String(headers['x-ratelimit-limit'])}`) });
    await c.json({ endpoint: 'a', path: '/hdr-ok' });
    await upstreamFailure(c.json({ endpoint: 'b', path: '/hdr-429' }));
    expect(seenAnswers).toEqual(['a 200 30', 'b 429 30']);
    await c.close();
  });

  it('does not count the wait before an attempt against the attempt timeout', async () => {
    answers.set('/queued', json(200, { ok: true }));
    // 300 ms attempt timeout; the spacing wait alone is longer.
    const { c } = client({ beforeAttempt: () => new Promise((r) => setTimeout(r, 400)) });
    await expect(c.json({ endpoint: 'q', path: '/queued' })).resolves.toMatchObject({ body: { ok: true } });
    await c.close();
  });

  it('runs the hook before every attempt, retries included', async () => {
    let calls = 0;
    answers.set('/rl-twice', (req, res) => {
      calls += 1;
      if (calls <= 2) json(429, { errors: ['slow down'] }, { 'x-ratelimit-reset': '0.01' })(req, res);
      else json(200, {})(req, res);
    });
    let before = 0;
    const { c } = client({
      retry: waitOnRateLimit({ maxRetries: 3, defaultMs: 1000, maxWaitMs: 5000 }),
      beforeAttempt: async () => {
        before += 1;
      },
    });
    await c.json({ endpoint: 'rl', path: '/rl-twice' });
    expect(before).toBe(3);
    await c.close();
  });
});

describe('firstOf retry policies', () => {
  const err = (reason: 'rate_limited' | 'http_5xx', status: number) => Object.assign(new UpstreamError(reason, 'x', status), { retryAfterMs: 70 });
  const policy = firstOf(waitOnRateLimit({ maxRetries: 2, defaultMs: 1000, maxWaitMs: 5000 }), backoffOn([503], { maxRetries: 1, baseMs: 10, capMs: 10 }));

  it('lets the first policy that retries an error decide', () => {
    expect(policy.delayFor(0, err('rate_limited', 429))).toBe(70);
    expect(policy.delayFor(0, err('http_5xx', 503))).toBeGreaterThanOrEqual(5);
  });

  it('gives up when none retries', () => {
    expect(policy.delayFor(0, err('http_5xx', 500))).toBeUndefined();
    expect(policy.delayFor(1, err('http_5xx', 503))).toBeUndefined();
    expect(policy.delayFor(2, err('rate_limited', 429))).toBeUndefined();
  });
});

describe('error bodies', () => {
  it.each([
    ['{"errors":["a","b"]}', 'a; b'],
    ['{"errors":[{"status":"422","title":"invalid attribute","detail":"Name has already been taken"}]}', 'invalid attribute: Name has already been taken'],
    ['{"errors":[{"status":404,"title":"not found"}]}', 'not found'],
    ['Permission denied', 'Permission denied'],
    ['', ''],
  ])('%s → %s', (body, msg) => {
    expect(errorBodyMessage(body)).toBe(msg);
  });
});

describe('a rate limit that asks for too long a wait', () => {
  const policy = waitOnRateLimit({ maxRetries: 5, defaultMs: 1000, maxWaitMs: 60_000 });
  const err = () => new UpstreamError('rate_limited', 'teams: HTTP 429', 429);
  it.each([1_000_000_000, 999_999_999_000, Infinity])('is not waited on (%s ms): the request fails, saying what it was asked', (ms) => {
    const e = err();
    e.retryAfterMs = ms;
    expect(policy.delayFor(0, e)).toBeUndefined();
    expect(e.message).toMatch(/asked to wait (\d+|unbounded) s, longer than the 60 s vigil waits: not retried/);
  });
  it('is waited on up to the limit', () => {
    const e = err();
    e.retryAfterMs = 60_000;
    expect(policy.delayFor(0, e)).toBe(60_000);
  });
});

describe('error text from the upstream', () => {
  it('is capped, however long or many the errors[] entries', () => {
    const msg = errorBodyMessage(JSON.stringify({ errors: ['e'.repeat(8 * 1024 * 1024), ...Array.from({ length: 10_000 }, () => 'x')] }));
    expect(msg.length).toBeLessThan(1200);
    expect(new UpstreamError('http_5xx', 'y'.repeat(1_000_000)).message.length).toBeLessThan(1200);
  });
});

describe('retry-after', () => {
  it('prefers x-ratelimit-reset seconds, then Retry-After seconds or date', () => {
    expect(retryAfterMs({ 'x-ratelimit-reset': '0.42' })).toBe(420);
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({})).toBeUndefined();
  });
});
