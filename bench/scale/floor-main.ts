/**
 * The floor of a collection: the same answers vigil fetched in one collection (recorded by
 * `request-log.ts` as NDJSON), fetched again with the same HTTP client and each body digested as
 * vigil's answer memo does (SHA-256), nothing else. What vigil spends above this is decoding,
 * mapping and the exposition; the floor is what no exporter fetching these answers can go below.
 *
 *   node --import tsx bench/scale/floor-main.ts --requests=FILE [--replays=3] [--warmup=1] [--per-origin=4]
 *   node --import tsx bench/scale/floor-main.ts --requests=FILE --turns    # one replay per `replay` line read
 *
 * The client is vigil's: an undici `Pool` per origin with the options of `UpstreamClient`
 * (its `POOL_SHAPE` and header bound, and the timeouts of the estate's targets),
 * and the body read and digested by vigil's own `readBody`. Up to `--per-origin` requests of one origin in
 * flight at a time, in the recorded order (vigil's pool has 4 connections per target and a target's
 * endpoints are fetched concurrently), all origins at once. Unlike vigil, no pacing (the teams
 * targets' request spacing only waits, it costs no CPU), and the organizations, one listener in the
 * estate, share one pool here where vigil has one per target.
 *
 * A warm-up replay (uncounted: vigil's measured collections follow warm ones too) opens the
 * connections and warms the JIT; then each replay's process CPU (user + system) and wall time are
 * taken around the replay alone and a full collection of its garbage, with the garbage collector
 * on the main thread as vigil's is (`--single-threaded-gc`, `FLOOR_NODE_FLAGS`). Prints one line `floor <json>` (a `FloorResult`), exits 0.
 *
 * With `--turns`, the replays are made when asked, turn about with vigil's collections (floor.ts):
 * after the warm-up it prints `floor ready`, then makes one replay per line `replay` on its standard
 * input and prints `replay <json>` (a `FloorReplay`) after each; when the input ends, `floor <json>`
 * of every replay made.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Pool, type Dispatcher } from 'undici';
import { MAX_RESPONSE_HEADER_BYTES, POOL_SHAPE } from '../../src/upstream/client.js';
import { readBody } from '../../src/upstream/attempt-bounds.js';
import type { FloorReplay, FloorResult } from './floor.js';
import type { RecordedRequest } from './request-log.js';

/** vigil's pool options (UpstreamClient's constructor), for an http target with the estate's 30 s timeout. */
const TIMEOUT_MS = 30_000;
const poolOptions: Pool.Options = {
  ...POOL_SHAPE,
  headersTimeout: TIMEOUT_MS,
  maxHeaderSize: MAX_RESPONSE_HEADER_BYTES,
  bodyTimeout: TIMEOUT_MS,
  connect: { timeout: TIMEOUT_MS },
};
const MAX_BODY = 2 ** 31;

/**
 * An endpoint class: the path without its query, each segment with a digit in it (an id, a
 * generated name like org-03, a page cursor) as `:id`, and the segment after `organizations` as `:org`.
 */
function endpointClass(url: string): string {
  const segments = new URL(url).pathname.split('/');
  return segments.map((s, i) => (segments[i - 1] === 'organizations' ? ':org' : /\d/.test(s) && i > 2 ? ':id' : s)).join('/');
}

interface Tally {
  requests: number;
  bytes: number;
  errors: number;
  non2xx: number;
  endpoints: FloorResult['endpoints'];
  samples: string[];
}

async function fetchOne(pool: Dispatcher, r: RecordedRequest, tally: Tally): Promise<void> {
  const url = new URL(r.url);
  tally.requests++;
  const cls = (tally.endpoints[endpointClass(r.url)] ??= { requests: 0, bytes: 0 });
  cls.requests++;
  try {
    const res = await pool.request({ method: r.method as Dispatcher.HttpMethod, path: `${url.pathname}${url.search}`, headers: r.headers });
    // Digested as it arrives, as vigil reads an answer it may know again (`readBody`), never joined.
    const body = await readBody(res, MAX_BODY, r.url, true);
    tally.bytes += body.length;
    cls.bytes += body.length;
    // The same answer as vigil's: its status when recorded (an optional endpoint's 403 or 501 is
    // one), else a success.
    if (res.statusCode < 200 || res.statusCode > 299) tally.non2xx++;
    const same = r.status === undefined ? res.statusCode >= 200 && res.statusCode <= 299 : res.statusCode === r.status;
    if (!same) throw new Error(`HTTP ${res.statusCode}${r.status === undefined ? '' : `, vigil had ${r.status}`}`);
  } catch (e) {
    tally.errors++;
    if (tally.samples.length < 5) tally.samples.push(`${r.method} ${r.url}: ${(e as Error).message}`);
  }
}

/**
 * A full collection now (the process runs with `--expose-gc`). vigil pays for its garbage as it
 * goes; a replay's garbage would otherwise be collected during the next replay, or never: the
 * replays' CPU went 0.159, 0.141, 0.077 s at 1x.
 */
function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('floor-main.ts runs with --expose-gc');
  gc();
}

/** Every request once: each origin's in order, `perOrigin` in flight at most, all origins at once. */
async function replay(byOrigin: Map<string, RecordedRequest[]>, pools: Map<string, Pool>, perOrigin: number): Promise<{ replay: FloorReplay; tally: Tally }> {
  const tally: Tally = { requests: 0, bytes: 0, errors: 0, non2xx: 0, endpoints: {}, samples: [] };
  // What earlier replays left is collected before the clock starts; what this one leaves, before it stops.
  collectGarbage();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    [...byOrigin].map(async ([origin, list]) => {
      const pool = pools.get(origin) as Pool;
      let next = 0;
      const worker = async () => {
        while (next < list.length) await fetchOne(pool, list[next++] as RecordedRequest, tally);
      };
      await Promise.all(Array.from({ length: Math.min(perOrigin, list.length) }, worker));
    }),
  );
  collectGarbage();
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  return {
    replay: {
      cpu_s: round((used.user + used.system) / 1e6),
      wall_s: round(wall),
      requests: tally.requests,
      bytes: tally.bytes,
      errors: tally.errors,
      non_2xx: tally.non2xx,
    },
    tally,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string' },
      replays: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '1' },
      'per-origin': { type: 'string', default: String(poolOptions.connections) },
      turns: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.requests) throw new Error('--requests=FILE (NDJSON of request-log.ts) is required');
  const recorded = readFileSync(values.requests, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RecordedRequest);
  const byOrigin = new Map<string, RecordedRequest[]>();
  for (const r of recorded) {
    const origin = new URL(r.url).origin;
    byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), r]);
  }
  const pools = new Map([...byOrigin.keys()].map((o) => [o, new Pool(o, poolOptions)]));
  const perOrigin = Math.max(1, Number(values['per-origin']));

  for (let i = 0; i < Number(values.warmup); i++) await replay(byOrigin, pools, perOrigin);
  const replays: FloorReplay[] = [];
  let last: Tally | undefined;
  const once = async () => {
    const { replay: one, tally } = await replay(byOrigin, pools, perOrigin);
    replays.push(one);
    last = tally;
    return one;
  };
  if (values.turns) {
    process.stdout.write('floor ready\n');
    for await (const line of createInterface({ input: process.stdin })) {
      if (line.trim() !== 'replay') throw new Error(`floor-main.ts --turns reads only "replay" lines, not ${JSON.stringify(line)}`);
      process.stdout.write(`replay ${JSON.stringify(await once())}\n`);
    }
  } else {
    for (let i = 0; i < Number(values.replays); i++) await once();
  }
  await Promise.all([...pools.values()].map((p) => p.close()));
  const result: FloorResult = { replays, endpoints: last?.endpoints ?? {}, error_samples: last?.samples ?? [] };
  process.stdout.write(`floor ${JSON.stringify(result)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`floor failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
