import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, listen } from '../../src/server.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { appDeps } from '../helpers/app-deps.js';
import { series, seriesOf } from '../helpers/exposition.js';

/** The HTTP face: /metrics (plain and gzip), /healthz, /readyz, the landing page and the API. */
let vigil: TestDaemon;
let slow: http.Server;
let slowUrl = '';

beforeAll(async () => {
  // An upstream that answers only after 1.5 s: a scrape meanwhile must not wait for it.
  slow = http.createServer((_req, res) =>
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"mode":"disabled"}}'), 1500),
  );
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  slowUrl = `http://127.0.0.1:${(slow.address() as { port: number }).port}`;
  // Each POST /-/collect here runs the jobs: none is answered from the run before. One job per
  // target (the node poll off): the tests count jobs and requests.
  vigil = await startTestDaemon(`secrets:\n  - name: down\n    address: http://127.0.0.1:1\n    schedule: "${NEVER}"\n    nodes: { enabled: false }\n`, {
    collectMinInterval: 0,
  });
});
afterAll(async () => {
  await vigil?.close();
  slow.closeAllConnections();
  await new Promise((r) => slow.close(r));
});

describe('/metrics', () => {
  it('serves the text format with its content type', async () => {
    const res = await fetch(`${vigil.url}/metrics`, { headers: { 'accept-encoding': 'identity' } });
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await res.text()).toContain('secrets_replication_up{target="down",kind="performance"} 0');
  });

  it('answers the same however the path is spelled (the fast path and the router agree)', async () => {
    const get = async (path: string) => {
      const res = await fetch(`${vigil.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
      return { status: res.status, type: res.headers.get('content-type'), up: (await res.text()).includes('secrets_replication_up{target="down"') };
    };
    const fast = await get('/metrics');
    expect(fast).toEqual({ status: 200, type: 'text/plain; version=0.0.4; charset=utf-8', up: true });
    for (const path of ['/metrics/', '/metrics?debug=1', '/Metrics']) expect(await get(path), path).toEqual(fast);
  });

  it('honours Accept-Encoding: gzip with the same content', async () => {
    const body = await new Promise<Buffer>((resolve, reject) => {
      http.get(`${vigil.url}/metrics`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        expect(res.headers['content-encoding']).toBe('gzip');
        const chunks: Buffer[] = [];
        res
          .on('data', (c: Buffer) => chunks.push(c))
          .on('end', () => resolve(Buffer.concat(chunks)))
          .on('error', reject);
      });
    });
    const text = gunzipSync(body).toString();
    expect(text).toContain('secrets_replication_up{target="down",kind="performance"} 0');
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('answers from the snapshot while a collection waits on a slow upstream', async () => {
    await vigil.reload(`secrets:\n  - name: slow\n    address: ${slowUrl}\n    timeout: 5s\n    schedule: "${NEVER}"\n    nodes: { enabled: false }\n`);
    let collected = false;
    const collecting = vigil.collect().then(() => (collected = true));
    const res = await fetch(`${vigil.url}/metrics`);
    expect(res.status).toBe(200);
    await res.text();
    // An ordering check, not a timing one: the scrape is answered while the collection still waits.
    expect(collected).toBe(false);
    const ready = await fetch(`${vigil.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ ready: false, pending: ['secrets_replication/slow'] });
    await collecting;
    expect((await fetch(`${vigil.url}/readyz`)).status).toBe(200);
  });
});

describe('health and pages', () => {
  it('/healthz answers while the process lives', async () => {
    const res = await fetch(`${vigil.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('OK\n');
  });

  it('/ lists targets and links', async () => {
    const html = await (await fetch(`${vigil.url}/`)).text();
    expect(html).toContain('<span class="badge ok">up</span> secrets_replication <span class="muted">slow</span>');
    expect(html).toContain('href="metrics"');
  });

  it('/api/v1/targets gives each job state with its last error', async () => {
    await vigil.reload(`secrets:\n  - name: down\n    address: http://127.0.0.1:1\n    schedule: "${NEVER}"\n    nodes: { enabled: false }\n`);
    await vigil.collect();
    const body = (await (await fetch(`${vigil.url}/api/v1/targets`)).json()) as { targets: Array<Record<string, unknown>> };
    expect(body.targets).toHaveLength(1);
    expect(body.targets[0]).toMatchObject({ collector: 'secrets_replication', target: 'down', up: false, lastError: { reason: 'connect' } });
  });

  it('unknown paths are 404', async () => {
    expect((await fetch(`${vigil.url}/nope`)).status).toBe(404);
  });
});

describe('POST /-/collect', () => {
  it('runs every job now, answers when they are done, and says what the run cost', async () => {
    await vigil.reload(`secrets:\n  - name: down\n    address: http://127.0.0.1:1\n    schedule: "${NEVER}"\n    nodes: { enabled: false }\n`);
    await vigil.collect();
    const runs = async () => (await vigil.metrics()).get('vigil_collector_runs_total{collector="secrets_replication",target="down"}');
    const before = await runs();
    const res = await fetch(`${vigil.url}/-/collect`, { method: 'POST' });
    expect(res.status).toBe(200);
    const summary = (await res.json()) as Record<string, number>;
    // one job, failing (nothing listens on port 1), one request per replication kind, never retried
    expect(summary).toMatchObject({ jobs: 1, failed_jobs: 1, upstream_requests: 2 });
    expect(summary.series).toBeGreaterThan(0);
    expect(await runs()).toBe((before ?? 0) + 1);
  });

  it('times a run by what it waited for: a 1.5 s upstream, in the summary, the job and the request histogram', async () => {
    await vigil.reload(`secrets:\n  - name: slow\n    address: ${slowUrl}\n    timeout: 5s\n    schedule: "${NEVER}"\n    nodes: { enabled: false }\n`);
    await vigil.collect();
    const requests = (m: Map<string, number>, le: string) =>
      [...seriesOf(m, 'vigil_upstream_request_duration_seconds_bucket')]
        .filter(([k]) => k.includes('target="slow"') && k.includes(`le="${le}"`))
        .reduce((n, [, v]) => n + v, 0);
    const before = await vigil.metrics();
    const summary = (await (await fetch(`${vigil.url}/-/collect`, { method: 'POST' })).json()) as Record<string, number>;
    expect(summary).toMatchObject({ jobs: 1, failed_jobs: 0, upstream_requests: 2 });
    // At least the upstream's delay, well under the 5 s timeout; waiting is not CPU time.
    expect(summary.wall_seconds).toBeGreaterThanOrEqual(1.5);
    expect(summary.wall_seconds).toBeLessThan(5);
    expect(summary.cpu_seconds).toBeLessThan(summary.wall_seconds!);
    const after = await vigil.metrics();
    expect(after.get(series('vigil_collector_duration_seconds', { collector: 'secrets_replication', target: 'slow' }))).toBeGreaterThanOrEqual(1.5);
    // The run's two requests (one per replication kind) land above the 1 s bucket, within 2.5 s.
    expect(requests(after, '1') - requests(before, '1')).toBe(0);
    expect(requests(after, '2.5') - requests(before, '2.5')).toBe(2);
    expect(requests(after, '+Inf') - requests(before, '+Inf')).toBe(2);
  });

  it('is not a GET', async () => {
    expect((await fetch(`${vigil.url}/-/collect`)).status).toBe(405);
  });
});

describe('runtime metrics', () => {
  it('are rendered at most once a second, however often /metrics is scraped', async () => {
    let renders = 0;
    const app = createApp(appDeps({ processMetrics: () => Promise.resolve(`process_renders ${++renders}\n`) }));
    const server = await listen(app, '127.0.0.1:0');
    try {
      const bodies = [];
      for (let i = 0; i < 5; i++) bodies.push(await (await fetch(`${server.url}/metrics`)).text());
      expect(renders).toBe(1);
      expect(bodies.every((b) => b === 'process_renders 1\n')).toBe(true);
    } finally {
      await server.close();
    }
  });
});
