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
 * of error text, a Retry-After of years, a FIFO as a token file, a storm of reloads, teams pages far
 * larger than asked for, and a listing that never stops growing.
 */

/** One team, `pad` bytes heavier than it needs to be (an attribute vigil does not read). */
const team = (id: string, pad = 0) =>
  `{"id":"${id}","type":"teams","attributes":{"name":"n${id}","users-count":3${pad ? `,"padding":"${'x'.repeat(pad)}"` : ''}}}`;
/** Page `number` of `pages`, holding `count` teams whatever page[size] asked for. */
function teamsPage(number: number, pages: number, count: number, pad = 0): string {
  const data = Array.from({ length: count }, (_, i) => team(`t${number}-${i}`, pad)).join(',');
  const pagination = { 'current-page': number, 'next-page': number < pages ? number + 1 : null, 'total-pages': pages, 'total-count': pages * count };
  return `{"data":[${data}],"links":{},"meta":{"pagination":${JSON.stringify(pagination)}}}`;
}
const pageNumber = (url: string) => Number(new URL(url, 'http://x').searchParams.get('page[number]') ?? 1);
/** Each page is made once: making megabytes of JSON per request would slow the service, not vigil. */
const made = new Map<string, string>();
const cached = (key: string, make: () => string) => made.get(key) ?? (made.set(key, make()), made.get(key) as string);

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
    } else if (req.url?.startsWith('/oversized/')) {
      // 150,000 teams a page (each page under max_response_size) over 40 pages (under max_pages).
      const n = pageNumber(req.url);
      res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end(cached(`oversized ${n}`, () => teamsPage(n, 40, 150_000)));
    } else if (req.url?.startsWith('/bloated/')) {
      // The 100 teams asked for, 4 MiB a page, over 40 pages: 160 MiB for 4,000 teams.
      const n = pageNumber(req.url);
      res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end(cached(`bloated ${n}`, () => teamsPage(n, 40, 100, 40 * 1024)));
    } else if (req.url?.startsWith('/polite/')) {
      res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end(teamsPage(1, 1, 3));
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
  // Its own budget of requests: the limiter's 429 holds back the targets that share its token.
  writeFileSync(join(dir, 'listing-token'), 'listing-token\n');
  const listing = (name: string, extra = '') =>
    `  - { name: ${name}, address: "${upstreamUrl}/${name}", organization: acme, token_file: ${join(dir, 'listing-token')}, schedule: "${NEVER}", timeout: 60s${extra} }\n`;
  h = await startHostileVigil(`agents:
  - { name: loud, address: "${upstreamUrl}/loud", schedule: "${NEVER}", members: true, servers: false, self: false, nodes: false, jobs: false, evaluations: false, deployments: false, timeout: 60s }
  - { name: fifo, address: "${upstreamUrl}/fifo", schedule: "${NEVER}", token_file: ${fifo}, servers: false, self: false, members: true, nodes: false, jobs: false, evaluations: false, deployments: false }
teams:
  - { name: limiter, address: "${upstreamUrl}/limiter", organization: acme, token_file: ${join(dir, 'teams-token')}, schedule: "${NEVER}" }
${listing('oversized')}${listing('bloated', ', max_listing_size: 32MiB')}${listing('polite')}`);
  // an empty list (config not applied yet) is not "every job ran"
  await waitFor('every job to run once', async () => ((await targets()).filter((t) => t.runs >= 1).length === 6 ? true : undefined), 45_000);
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

  it('a page of 150,000 teams when 100 were asked for fails that listing, naming the page and both sizes, and holds nothing', async () => {
    expect(await errorOf('teams', 'oversized')).toMatchObject({
      reason: 'too_large',
      message: 'teams/list: page 1 holds 150000 teams, more than the page[size] of 100 asked for',
    });
    expect(await errorOf('teams', 'polite')).toBeNull();
    const m = (await get(h.url, '/metrics')).text;
    expect(m).toContain('teams_up{target="oversized",organization="acme"} 0');
    expect(m).toContain('teams_up{target="polite",organization="acme"} 1');
    expect(m).toContain('teams_untracked_teams{target="polite",organization="acme"} 0');
    expect(m).toContain('teams_team_users{target="polite",organization="acme",team="nt1-2"} 3');
    expect(m).not.toContain('target="oversized",organization="acme",team=');
    await expectHealthy(h);
  });

  it('pages of the size asked for that add up past max_listing_size fail that listing, saying so', async () => {
    const e = await errorOf('teams', 'bloated');
    expect(e?.reason, JSON.stringify(e)).toBe('too_large');
    expect(e?.message).toMatch(/^teams\/list: pages 1-9 add up to \d+ bytes, more than max_listing_size 33554432$/);
    expect((await get(h.url, '/metrics')).text).toContain('teams_up{target="bloated",organization="acme"} 0');
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
