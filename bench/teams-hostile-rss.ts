/**
 * A broken or compromised team-management service against a real vigil process: it ignores
 * page[size] and answers every page with PAGE_TEAMS teams (each page under max_response_size) over
 * PAGES pages (under max_pages). Reports vigil's RSS before the listing, its peak (VmHWM) and what it
 * holds once the listing has ended, and how the listing ended.
 *
 *   npx tsx bench/teams-hostile-rss.ts [--page-teams=150000] [--pages=40]
 *
 * The hostile service runs in this process; vigil runs in its own, so the figures are vigil's alone.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startVigil } from '../test/helpers/process.js';

const arg = (name: string, def: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? def);
const PAGE_TEAMS = arg('page-teams', 150_000);
const PAGES = arg('pages', 40);
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** One page as the hostile service sends it: ids unique across pages, so the listing is consistent. */
function page(number: number): string {
  const teams: string[] = [];
  for (let i = 0; i < PAGE_TEAMS; i++) {
    const id = `t${number}-${i}`;
    teams.push(`{"id":"${id}","type":"teams","attributes":{"name":"n${id}","users-count":3}}`);
  }
  const pagination = {
    'current-page': number,
    'next-page': number < PAGES ? number + 1 : null,
    'total-pages': PAGES,
    'total-count': PAGES * PAGE_TEAMS,
  };
  return `{"data":[${teams.join(',')}],"links":{},"meta":{"pagination":${JSON.stringify(pagination)}}}`;
}

let served = 0;
let servedBytes = 0;
const upstream = http.createServer((req, res) => {
  const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page[number]') ?? 1);
  const body = page(n);
  served++;
  servedBytes += Buffer.byteLength(body);
  res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end(body);
});
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
const address = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

const dir = join(tmpdir(), `vigil-bench-hostile-teams-${process.pid}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'token'), 'bench-token\n');
writeFileSync(
  join(dir, 'vigil.yml'),
  `teams:\n  - { name: hostile, address: "${address}", organization: acme, token_file: ${join(dir, 'token')}, schedule: "0 0 0 1 1 *", requests_per_second: 1000 }\n`,
);

const status = (pid: number) => readFileSync(`/proc/${pid}/status`, 'utf8');
const kib = (text: string, key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? NaN) * 1024;

const vigil = startVigil([`--config.file=${join(dir, 'vigil.yml')}`, '--web.listen-address=127.0.0.1:0', '--log.format=json']);
try {
  const url = await vigil.ready('vigil listening', 120_000);
  const pid = vigil.child.pid as number;
  const rssStart = kib(status(pid), 'VmRSS');
  const started = performance.now();
  let ended: { reason?: string; message?: string } | null = null;
  for (;;) {
    const targets = (await (await fetch(`${url}/api/v1/targets`)).json()) as {
      targets: { runs: number; lastError: { reason: string; message: string } | null }[];
    };
    const t = targets.targets[0];
    if (t && t.runs >= 1) {
      ended = t.lastError;
      break;
    }
    await sleep(250);
  }
  const wall = (performance.now() - started) / 1000;
  await sleep(5_000); // what the process still holds once the listing is over
  const after = status(pid);
  const result = {
    bench: 'teams-hostile-rss',
    page_teams: PAGE_TEAMS,
    pages_announced: PAGES,
    pages_served: served,
    bytes_served_mib: mib(servedBytes),
    listing: ended ? `failed: ${ended.reason}: ${ended.message}` : 'succeeded',
    wall_seconds: Math.round(wall * 10) / 10,
    rss_start_mib: mib(rssStart),
    rss_peak_mib: mib(kib(after, 'VmHWM')),
    rss_after_mib: mib(kib(after, 'VmRSS')),
    node: process.versions.node,
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('results/teams-hostile-rss.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await vigil.stop();
  upstream.close();
}
