/**
 * The physical ceiling of a /metrics endpoint in Node: a bare `http` server answering every request
 * with the same bytes from memory (gzip ones, compressed once at start, when asked for them).
 * Nothing an exporter could do is cheaper. Prints `listening <url>`.
 *
 *   node --import tsx bench/scale/ceiling.ts --body=FILE
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { DEFLATE_OPTIONS } from '../../src/metrics/gzip-stream.js';

const { values } = parseArgs({ options: { body: { type: 'string' } }, strict: true });
const body = readFileSync(values.body ?? '');
// At vigil's level, so both send about the same bytes.
const gzipped = gzipSync(body, { level: DEFLATE_OPTIONS.level });

const server = http.createServer((req, res) => {
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  res.writeHead(200, {
    'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  res.end(gzip ? gzipped : body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
