import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, publishUpstreamStats, type BuildContext, type TargetBase } from '../../../src/jobs/context.js';
import { jobContext } from '../../../src/jobs/job-context.js';
import type { Offload } from '../../../src/offload/pool.js';

let server: http.Server;
let address = '';
beforeAll(async () => {
  server = http.createServer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** A context whose store records which groups were handed to it, deferred or not. */
function recordingContext(): { ctx: BuildContext; written: string[] } {
  const written: string[] = [];
  const ctx = jobContext(undefined as unknown as Offload);
  ctx.store = { ...ctx.store, replace: (key) => void written.push(key), replaceLater: (key) => void written.push(key) };
  return { ctx, written };
}

const target = (name: string): TargetBase => ({
  name,
  address,
  timeout: 5_000,
  max_response_size: 1 << 20,
  tls: {} as TargetBase['tls'],
  proxy_from_environment: false,
});

describe("a job's commit publishes its own target's upstream stats", () => {
  it("and none of another target's, which wait for that target's own job", async () => {
    const { ctx, written } = recordingContext();
    const a = clientFor('secrets', target('a'), ctx);
    const b = clientFor('secrets', target('b'), ctx);
    try {
      await a.json({ endpoint: 'secrets/leader', path: '/v1/sys/leader' });
      await b.json({ endpoint: 'secrets/leader', path: '/v1/sys/leader' });

      publishUpstreamStats(ctx, 'a');
      expect(written).toEqual(['vigil/upstream/secrets/a']);

      // Requests of b go on while a commits again: b's stats are still not rendered for them.
      await b.json({ endpoint: 'secrets/leader', path: '/v1/sys/leader' });
      publishUpstreamStats(ctx, 'a');
      expect(written).toEqual(['vigil/upstream/secrets/a']);

      publishUpstreamStats(ctx, 'b');
      expect(written).toEqual(['vigil/upstream/secrets/a', 'vigil/upstream/secrets/b']);
      // Published once: nothing is left to render until a new request.
      publishUpstreamStats(ctx, 'b');
      expect(written).toHaveLength(2);
      expect(ctx.upstreamStats.get('vigil/upstream/secrets/b')?.latency.get('secrets/leader\u0000200')?.count).toBe(2);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
