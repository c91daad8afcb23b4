import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { collectionOffloadPool } from '../../../../src/collectors/decoding.js';
import { teamsCollector } from '../../../../src/collectors/teams/collector.js';
import { parseConfig } from '../../../../src/config/load.js';
import { jobContext } from '../../../../src/jobs/job-context.js';
import { linesText } from '../../../../src/metrics/encoded-lines.js';
import { listEndpoint } from '../../../../src/collectors/teams/list.js';
import { Received } from '../../../../src/upstream/received.js';
import { fixture } from '../../../helpers/fixtures.js';
import { NEVER } from '../../../helpers/schedules.js';
import { tempDir } from '../../../helpers/temp-dir.js';

/**
 * An organization of 1,000 pages of one team each, served from loopback; a page's body can be
 * replaced between runs. The listing's pages are read again at every run: those byte-identical to
 * the last are not decoded again.
 */
const PAGES = 1000;
const template = (fixture('teams/page-1-of-3.json') as { data: Array<Record<string, unknown>> }).data[1] as { attributes: object };
const team = (n: number, name = `team-${n}`) => ({ ...template, id: `team-id-${n}`, attributes: { ...template.attributes, name } });
const pageOf = (n: number, data: unknown[]) =>
  JSON.stringify({
    data,
    links: { next: n < PAGES ? `/api/v2/organizations/acme/teams?page%5Bnumber%5D=${n + 1}&page%5Bsize%5D=1` : null },
    meta: { pagination: { 'current-page': n, 'next-page': n < PAGES ? n + 1 : null, 'total-pages': PAGES, 'total-count': PAGES } },
  });
const bodies = new Map<number, string>();
const reset = () => {
  for (let n = 1; n <= PAGES; n++) bodies.set(n, pageOf(n, [team(n)]));
};

let server: http.Server;
let address: string;
const offload = collectionOffloadPool(1);
const tokenFile = join(tempDir('vigil-teams-unchanged-'), 'token');
writeFileSync(tokenFile, 'tok\n');

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page[number]') ?? 1);
    res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end(bodies.get(page) ?? '{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await offload.close();
  server.close();
});

/** One target's job as the engine builds it, run as often as asked; each run's teams part as series lines, and the pages reused so far. */
function teamsJob() {
  const ctx = jobContext(offload);
  const config = parseConfig(
    `teams:\n  - { name: acme, address: "${address}", organization: acme, token_file: ${tokenFile}, schedule: "${NEVER}", page_size: 1, max_teams: ${PAGES}, requests_per_second: 1000 }\n`,
    'vigil.yml',
    {},
  );
  const [job] = teamsCollector.jobs(config.teams, ctx, undefined);
  const reused = () => ctx.upstreamStats.get('vigil/upstream/teams/acme')?.unchanged.get(listEndpoint.id) ?? 0;
  const run = async () => {
    const part = (await job!.run(AbortSignal.timeout(60_000))).find((p) => p.part === listEndpoint.id);
    const lines = [...(part?.group.values() ?? [])].flatMap((l) => linesText(l).split('\n')).filter(Boolean);
    return { error: part?.error, lines: new Set(lines) };
  };
  return { run, reused, close: () => Promise.all(ctx.clients.map((c) => c.close())) };
}

const minus = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x)).sort();

describe('a listing whose pages did not change', () => {
  it('reuses every unchanged page, and one team renamed on page 700 of 1,000 changes exactly its series', async () => {
    reset();
    const job = teamsJob();
    const first = await job.run();
    expect(first.error).toBeUndefined();
    expect(job.reused()).toBe(0);

    const second = await job.run();
    expect(job.reused()).toBe(PAGES);
    expect(second.lines).toEqual(first.lines);

    bodies.set(700, pageOf(700, [team(700, 'renamed-700')]));
    const third = await job.run();
    expect(third.error).toBeUndefined();
    expect(job.reused()).toBe(2 * PAGES - 1);
    const gone = minus(second.lines, third.lines);
    const added = minus(third.lines, second.lines);
    expect(gone.length).toBeGreaterThan(0);
    expect(gone.every((l) => l.includes('team="team-700"'))).toBe(true);
    expect(added).toEqual(gone.map((l) => l.replace('team="team-700"', 'team="renamed-700"')).sort());
    await job.close();
  }, 120_000);

  it('searches an unchanged answer for secrets once, and again once the token changes', async () => {
    reset();
    const next = 'next-token-zq81x';
    bodies.set(3, pageOf(3, [team(3, `named-${next}`)]));
    const job = teamsJob();
    const searches = vi.spyOn(Received.prototype, 'includes');
    const named = (r: { lines: Set<string> }) => [...r.lines].some((l) => l.includes(next));
    try {
      expect(named(await job.run())).toBe(true);
      expect(searches.mock.calls.length).toBeGreaterThanOrEqual(PAGES);
      searches.mockClear();
      // the same bytes, searched for the same token last time
      expect(named(await job.run())).toBe(true);
      expect(searches).not.toHaveBeenCalled();
      // the token is now a string page 3 held all along: every page is searched for it again
      writeFileSync(tokenFile, `${next}\n`);
      const rotated = await job.run();
      expect(rotated.error).toBeUndefined();
      expect(named(rotated)).toBe(false);
      expect(searches.mock.calls.length).toBeGreaterThanOrEqual(PAGES);
      searches.mockClear();
      // and known free of it from then on (page 3, which held it, is searched at every run)
      expect(named(await job.run())).toBe(false);
      expect(searches.mock.calls.length).toBeLessThan(5);
    } finally {
      writeFileSync(tokenFile, 'tok\n');
      searches.mockRestore();
      await job.close();
    }
  }, 120_000);

  it('never takes an unchanged invalid page for a success: it fails every run with its reason', async () => {
    reset();
    const broken = { ...team(2), attributes: { 'users-count': 3 } };
    bodies.set(2, pageOf(2, [broken]));
    const job = teamsJob();
    const runs = [await job.run(), await job.run(), await job.run()];
    for (const r of runs) {
      expect(r.error?.reason).toBe('schema');
      expect(r.error?.message).toMatch(/teams\/list: .*data\.0\.attributes\.name/);
    }
    // Page 1 (valid) was reused by the second and third runs; the invalid page 2 never was.
    expect(job.reused()).toBe(2);
    await job.close();
  }, 120_000);
});
