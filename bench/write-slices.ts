/**
 * What writing /metrics a slice at a time costs against one writev of the whole body: the slices
 * are what let the write timeout see a slow reader's progress (src/server/write-in-slices.ts). One
 * bare server in this process answers the same bytes every way (a 13.5 MB body, the full estate's
 * text, in pieces of `--piece-kib`: vigil's body is runs of 64 to 256 KiB), whole or in slices of
 * each of `--slice-kib`; wrk loads each in turn, alternating, in one run.
 *
 *   node --import tsx bench/write-slices.ts [--rounds=3] [--seconds=5] [--connections=4] [--piece-kib=128] [--slice-kib=256,1024]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { writeInSlices } from '../src/server/write-in-slices.js';
import { Children } from './scale/children.js';
import { load, type LoadResult } from './scale/wrk.js';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '4' },
    'piece-kib': { type: 'string', default: '128' },
    'slice-kib': { type: 'string', default: '256,1024' },
  },
  strict: true,
});

const PIECES = Math.round(13.5e6 / (Number(flags['piece-kib']) * 1024));
const pieces = Array.from({ length: PIECES }, (_, i) =>
  Buffer.from(`vigil_bench_padding{piece="${String(i).padStart(4, '0')}",i="00"} 1\n`.repeat(Math.round(13.5e6 / PIECES / 48))),
);
const length = pieces.reduce((n, b) => n + b.length, 0);

const ways: Record<string, (res: http.ServerResponse) => void> = {
  whole: (res) => {
    res.cork();
    for (const b of pieces) res.write(b);
    res.end();
  },
  ...Object.fromEntries(
    (flags['slice-kib'] ?? '').split(',').map((kib) => [`sliced-${kib}k`, (res: http.ServerResponse) => writeInSlices(res, pieces, Number(kib) * 1024)]),
  ),
};

const server = http.createServer((req, res) => {
  const way = ways[req.url?.slice(1) ?? ''];
  if (!way) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': length });
  way(res);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const children = new Children();
const results: Record<string, LoadResult[]> = Object.fromEntries(Object.keys(ways).map((w) => [w, []]));
try {
  for (let round = 0; round < Number(flags.rounds); round++) {
    for (const way of Object.keys(ways)) {
      const r = await load(children, {
        url: `${url}/${way}`,
        connections: Number(flags.connections),
        seconds: Number(flags.seconds),
        gzip: false,
        serverPid: process.pid,
      });
      results[way]!.push(r);
      console.log(`round ${round + 1} ${way}: ${r.requests_per_second} answers/s, ${r.cpu_ms_per_request} ms CPU each, p99 ${r.p99_ms} ms`);
    }
  }
} finally {
  server.close();
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = (way: string) => median(results[way]!.map((r) => r.requests_per_second));
const cpu = (way: string) => median(results[way]!.map((r) => r.cpu_ms_per_request));
console.log(`body ${length} bytes in ${PIECES} pieces; medians:`);
for (const way of Object.keys(ways)) {
  console.log(
    `  ${way}: ${rate(way)} answers/s (${cpu(way)} ms CPU); / whole: throughput ${(rate(way) / rate('whole')).toFixed(2)}, CPU per answer ${(cpu(way) / cpu('whole')).toFixed(2)}`,
  );
}
