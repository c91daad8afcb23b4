/**
 * Lists an organization of 5,000 teams from the team-management simulator through vigil's real
 * path (config → daemon → client → listing → snapshot), once at the service's default rate limit and
 * once with the limit raised, and reports requests, 429s, wall time and memory.
 *
 *   npx tsx bench/teams-listing.ts
 *
 * The simulator runs in a child process so the memory figures are vigil's alone.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { listEndpoint } from '../src/collectors/teams/list.js';
import { parseConfig } from '../src/config/load.js';
import { Daemon } from '../src/daemon.js';
import { createLogger } from '../src/support/logger.js';
import { memoryPeaks } from './memory-peaks.js';

const TEAMS = 5_000;
const ORG = 'bench';

interface Run {
  scenario: string;
  service_limit_per_second: number;
  requests_per_second: number;
  teams_counted: number;
  pages: number;
  requests: number;
  rate_limited: number;
  wall_seconds: number;
  rss_before_mib: number;
  peak_rss_mib: number;
  peak_heap_used_mib: number;
  exposition_bytes: number;
}

const dir = join(tmpdir(), `vigil-bench-${process.pid}`);
mkdirSync(dir, { recursive: true });
const scenarioFile = join(dir, 'scenario.json');
writeFileSync(scenarioFile, JSON.stringify({ organizations: [{ name: ORG, teams: TEAMS, seed: 1 }] }));

const sim = spawn(process.execPath, ['--import', 'tsx', 'simulators/teams/main.ts', '--port=0', `--scenario=${scenarioFile}`], {
  cwd: new URL('..', import.meta.url),
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
  let url = '';
  createInterface({ input: sim.stdout }).on('line', (line) => {
    url ||= /listening on (\S+)/.exec(line)?.[1] ?? '';
    const token = /owner token (\S+)/.exec(line)?.[1];
    if (url && token) resolve({ url, token });
  });
  sim.once('exit', (code) => reject(new Error(`simulator exited (${code})`)));
});
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, token);

const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
  (await (await fetch(`${url}/_sim${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })).json()) as T;
const simState = () => admin<{ requests: Record<string, number>; rate_limited_total: number }>('GET', '/state');

const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
/** Sum of every series of one metric in exposition text. */
const metric = (text: string, name: string) => [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);

async function run(scenario: string, serviceLimit: number, requestsPerSecond: number): Promise<Run> {
  await admin('POST', '/rate-limit', { per_second: serviceLimit });
  const daemon = new Daemon(createLogger('warn', 'json', new Writable({ write: (_c, _e, cb) => cb() })));
  const config = parseConfig(
    `teams:\n  - name: bench\n    address: ${url}\n    organization: ${ORG}\n    token_file: ${tokenFile}\n    schedule: "0 0 0 1 1 *"\n    requests_per_second: ${requestsPerSecond}\n`,
    'bench.yml',
    {},
  );
  const peaks = memoryPeaks(5);
  const before = await simState();
  const started = performance.now();
  await daemon.apply(config); // runs the job once at start
  await daemon.collectNow(); // joins that run
  const text = daemon.snapshot().text;
  const wall = (performance.now() - started) / 1000;
  const { rssBefore, peakRss, peakHeap } = peaks.stop();
  const after = await simState();
  await daemon.stop();
  const path = listEndpoint.path.replace('{organization}', ORG);
  return {
    scenario,
    service_limit_per_second: serviceLimit,
    requests_per_second: requestsPerSecond,
    teams_counted: metric(text, 'teams_organization_teams'),
    pages: metric(text, 'teams_listing_pages'),
    requests: (after.requests[path] ?? 0) - (before.requests[path] ?? 0),
    rate_limited: after.rate_limited_total - before.rate_limited_total,
    wall_seconds: Math.round(wall * 1000) / 1000,
    rss_before_mib: mib(rssBefore),
    peak_rss_mib: mib(peakRss),
    peak_heap_used_mib: mib(peakHeap),
    exposition_bytes: Buffer.byteLength(text),
  };
}

try {
  const runs = [await run('service limit 30/s, vigil default 25/s', 30, 25), await run('limit raised: service 100000/s, vigil 1000/s', 100_000, 1000)];
  const result = {
    bench: 'teams-listing',
    teams: TEAMS,
    page_size: 100,
    node: process.versions.node,
    max_rss_mib: mib(process.resourceUsage().maxRSS * 1024),
    runs,
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('results/teams-listing.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  for (const r of runs) {
    process.stdout.write(
      `${r.scenario}: ${r.teams_counted} teams, ${r.pages} pages, ${r.requests} requests, ${r.rate_limited} x 429, ` +
        `${r.wall_seconds} s, RSS ${r.rss_before_mib} -> peak ${r.peak_rss_mib} MiB, peak heap ${r.peak_heap_used_mib} MiB, /metrics ${r.exposition_bytes} bytes\n`,
    );
  }
  process.stdout.write(`process maxRSS ${result.max_rss_mib} MiB; written to bench/results/teams-listing.json\n`);
} finally {
  sim.kill('SIGTERM');
}
