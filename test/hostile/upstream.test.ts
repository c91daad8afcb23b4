import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEVER } from '../helpers/schedules.js';
import { waitFor } from '../helpers/wait.js';
import { expectHealthy, get, startHostileVigil, type HostileVigil } from './harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Hostile upstreams and files against a running vigil (issue 17, medium 6, 7, 8 and 11): megabytes
 * of error text, a Retry-After of years, a FIFO as a token file, a storm of reloads.
 */

let h: HostileVigil;
let upstream: http.Server;
let upstreamUrl: string;
let requests = 0;
const dir = tempDir('vigil-hostile-files-');

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    requests++;
    if (req.url?.startsWith('/loud/')) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: ['E'.repeat(8 * 1024 * 1024)] }));
    } else if (req.url?.startsWith('/limiter/')) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '999999999' }).end('{"errors":["slow down"]}');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    }
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const fifo = join(dir, 'token-fifo');
  execFileSync('mkfifo', [fifo]);
  writeFileSync(join(dir, 'teams-token'), 'teams-token\n');
  h = await startHostileVigil(`agents:
  - { name: loud, address: "${upstreamUrl}/loud", schedule: "${NEVER}", members: true, servers: false, self: false }
  - { name: fifo, address: "${upstreamUrl}/fifo", schedule: "${NEVER}", token_file: ${fifo}, servers: false, self: false, members: true }
teams:
  - { name: limiter, address: "${upstreamUrl}/limiter", organization: acme, token_file: ${join(dir, 'teams-token')}, schedule: "${NEVER}" }
`);
  // an empty list (config not applied yet) is not "every job ran"
  await waitFor('every job to run once', async () => ((await targets()).filter((t) => t.runs >= 1).length === 3 ? true : undefined), 45_000);
}, 60_000);
afterAll(async () => {
  if (h) expect(await h.stop()).toBe(0);
  upstream?.close();
}, 30_000);

interface Target {
  runs: number;
  collector: string;
  target: string;
  lastError: { reason: string; message: string } | null;
}
const targets = async () => (JSON.parse((await get(h.url, '/api/v1/targets')).text) as { targets: Target[] }).targets;
const errorOf = async (collector: string, target: string) => (await targets()).find((t) => t.collector === collector && t.target === target)?.lastError;

describe('hostile upstreams and files', () => {
  it('an 8 MiB error text is capped where kept, logged and shown', async () => {
    const e = await errorOf('scheduler_agent', 'loud');
    expect(e?.reason).toBe('http_5xx');
    expect(e?.message.length).toBeLessThan(1200);
    expect((await get(h.url, '/')).text.length).toBeLessThan(64 * 1024);
    expect((await get(h.url, '/api/v1/targets')).text.length).toBeLessThan(64 * 1024);
    for (const line of h.vigil.output().split('\n')) expect(line.length).toBeLessThan(8 * 1024);
    await expectHealthy(h);
  });

  it('Retry-After: 999999999 fails the run as rate_limited, saying so, instead of freezing the collector', async () => {
    const e = await errorOf('teams', 'limiter');
    expect(e?.reason).toBe('rate_limited');
    expect(e?.message).toMatch(/asked to wait \d+ s, longer than the 60 s vigil waits/);
    await expectHealthy(h);
  });

  it('a FIFO as a token file fails that part, naming the problem, and nothing hangs', async () => {
    // The run at start read it (and SIGTERM stops vigil at the end: see afterAll).
    const e = await errorOf('scheduler_agent', 'fifo');
    expect(e).toMatchObject({ reason: 'config' });
    expect(e?.message).toContain('not a regular file');
    await expectHealthy(h);
  });

  it('a storm of reloads of an unchanged config sends no upstream request', async () => {
    const before = requests;
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => fetch(`${h.url}/-/reload`, { method: 'POST', signal: AbortSignal.timeout(60_000) }).then((r) => r.status)),
    );
    expect(new Set(answers)).toEqual(new Set([200]));
    // Nothing in the config changed and no schedule fell due: no job runs again because of a reload.
    expect(requests - before).toBe(0);
    await expectHealthy(h);
  });
});
