/**
 * What writing /metrics a slice at a time costs against one writev of the whole body: the slices
 * are what let the write timeout see a slow reader's progress (src/server/write-in-slices.ts). One
 * bare server in this process answers the same bytes both ways (a 13.5 MB body in 25 pieces, the
 * full estate's text); wrk loads each in turn, alternating, in one run.
 *
 *   node --import tsx bench/write-slices.ts [--rounds=3] [--seconds=5] [--connections=4]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { writeInSlices } from '../src/server/write-in-slices.js';
import { Children } from './scale/children.js';
import { load, type LoadResult } from './scale/wrk.js';

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '4' } },
  strict: true,
});

const PIECES = 25;
const pieces = Array.from({ length: PIECES }, (_, i) =>
  Buffer.from(`vigil_bench_padding{piece="${i}",i="0000000"} 1\n`.repeat(Math.round(13.5e6 / PIECES / 48))),
);
const length = pieces.reduce((n, b) => n + b.length, 0);

const ways: Record<string, (res: http.ServerResponse) => void> = {
  whole: (res) => {
    res.cork();
    for (const b of pieces) res.write(b);
    res.end();
  },
  sliced: (res) => writeInSlices(res, pieces),
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
const results: Record<string, LoadResult[]> = { whole: [], sliced: [] };
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
console.log(
  `body ${length} bytes; medians: whole ${rate('whole')} answers/s (${cpu('whole')} ms CPU), sliced ${rate('sliced')} answers/s (${cpu('sliced')} ms CPU)`,
);
console.log(`sliced / whole: throughput ${(rate('sliced') / rate('whole')).toFixed(2)}, CPU per answer ${(cpu('sliced') / cpu('whole')).toFixed(2)}`);
