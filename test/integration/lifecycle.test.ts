import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/support/logger.js';
import { SnapshotStore } from '../../src/metrics/snapshot-store.js';
import { createApp, listen, type RunningHttp } from '../../src/server.js';
import { COLLECT_MIN_INTERVAL_MS, lifecycleRouter } from '../../src/server/lifecycle.js';
import { waitFor } from '../helpers/wait.js';

/** POST /-/reload and POST /-/collect: off by default, POST only, not reachable from other sites' pages, one run at a time. */
let server: RunningHttp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(enableLifecycle: boolean, collectNow: () => Promise<unknown> = () => Promise.resolve({ jobs: 0 }), collectMinInterval?: number) {
  const calls = { reload: 0, collect: 0 };
  const store = new SnapshotStore([]);
  const app = createApp({
    daemon: {
      snapshot: () => store.snapshot(),
      readiness: () => ({ ready: true, pending: [] }),
      targets: () => [],
      collectNow: () => {
        calls.collect++;
        return collectNow() as ReturnType<Parameters<typeof createApp>[0]['daemon']['collectNow']>;
      },
    },
    reload: async () => void calls.reload++,
    processMetrics: () => Promise.resolve(''),
    log: createLogger('error', 'json', new PassThrough()),
    enableLifecycle,
    ...(collectMinInterval !== undefined ? { collectMinInterval } : {}),
  });
  server = await listen(app, '127.0.0.1:0');
  return { url: server.url, calls };
}

describe('lifecycle endpoints', () => {
  it.each(['/-/reload', '/-/collect'])('%s answers 403 without --web.enable-lifecycle, and does nothing', async (path) => {
    const { url, calls } = await start(false);
    const res = await fetch(`${url}${path}`, { method: 'POST' });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('--web.enable-lifecycle');
    expect(calls).toEqual({ reload: 0, collect: 0 });
  });

  it.each(['GET', 'PUT', 'DELETE'])('%s is not allowed (405, Allow: POST)', async (method) => {
    const { url, calls } = await start(true);
    const res = await fetch(`${url}/-/reload`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(calls.reload).toBe(0);
  });

  it('a plain POST (curl -XPOST) and a JSON one work when enabled', async () => {
    const { url, calls } = await start(true);
    expect((await fetch(`${url}/-/reload`, { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${url}/-/reload`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    expect(calls.reload).toBe(2);
  });

  it.each([
    ['a text/plain body (a cross-site form or fetch without preflight)', { 'content-type': 'text/plain' }, 'x', 415],
    ['a form body', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=b', 415],
    ['an Origin of another site', { origin: 'https://evil.example' }, undefined, 403],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }, undefined, 403],
    ['a JSON content type with a body that is not JSON', { 'content-type': 'application/json' }, 'nope', 400],
  ])('refuses %s', async (_what, headers, body, status) => {
    const { url, calls } = await start(true);
    for (const path of ['/-/reload', '/-/collect']) {
      expect((await fetch(`${url}${path}`, { method: 'POST', headers, ...(body !== undefined ? { body } : {}) })).status).toBe(status);
    }
    expect(calls).toEqual({ reload: 0, collect: 0 });
  });

  it("a same-origin request from vigil's own page is allowed", async () => {
    const { url, calls } = await start(true);
    const res = await fetch(`${url}/-/reload`, { method: 'POST', headers: { origin: url, 'sec-fetch-site': 'same-origin' } });
    expect(res.status).toBe(200);
    expect(calls.reload).toBe(1);
  });

  it('/-/collect joins a run in progress instead of starting another', async () => {
    let finish: (v: unknown) => void = () => undefined;
    const { url, calls } = await start(true, () => new Promise((r) => (finish = r)), 0);
    let read = 0;
    server!.server.on('request', (req: http.IncomingMessage) => req.on('end', () => read++));
    const answers = Array.from({ length: 5 }, () => fetch(`${url}/-/collect`, { method: 'POST' }));
    // All five join the run before it ends: their (empty) bodies are read, and one turn of the event
    // loop takes each from its read body to the run, with no I/O left on the way.
    await waitFor('five calls read', async () => (read === 5 ? true : undefined), 20_000, { everyMs: 20 });
    await new Promise((r) => setImmediate(r));
    finish({ jobs: 7 });
    const bodies = await Promise.all(answers.map(async (a) => (await a).json()));
    expect(bodies).toEqual(Array.from({ length: 5 }, () => ({ jobs: 7 })));
    expect(calls.collect).toBe(1);
    // Once it is over, a new call runs again.
    const next = fetch(`${url}/-/collect`, { method: 'POST' });
    await waitFor('the second run to start', async () => (calls.collect === 2 ? true : undefined), 20_000, { everyMs: 20 });
    finish({ jobs: 8 });
    expect(await (await next).json()).toEqual({ jobs: 8 });
    expect(calls.collect).toBe(2);
  });

  it('/-/collect within the minimum interval of the last run is answered from it, without asking the upstream again', async () => {
    let requests = 0;
    const upstream = http.createServer((_req, res) => void (requests++, res.end('{}')));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
    let clock = 1_000_000;
    const app = express().use(
      lifecycleRouter({
        enabled: true,
        reload: async () => undefined,
        collectNow: async () => ({ status: (await fetch(upstreamUrl)).status, run: requests }),
        now: () => clock,
      }),
    );
    server = await listen(app, '127.0.0.1:0');
    const collect = async () => (await fetch(`${server!.url}/-/collect`, { method: 'POST' })).json();
    try {
      expect(await collect()).toEqual({ status: 200, run: 1 });
      for (let i = 0; i < 10; i++) {
        clock += (COLLECT_MIN_INTERVAL_MS - 1) / 10;
        expect(await collect()).toEqual({ status: 200, run: 1 });
      }
      expect(requests).toBe(1);
      clock += 1;
      expect(await collect()).toEqual({ status: 200, run: 2 });
      expect(requests).toBe(2);
    } finally {
      upstream.close();
    }
  });
});
