import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Children } from '../../bench/scale/children.js';
import { vigilConfig } from '../../bench/scale/estate.js';
import { startEstate } from '../../bench/scale/start-estate.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * /metrics gzipped, read by clients no one on the project wrote, at the bench estate's full size
 * (10 secrets pairs, 5 gossip pools of 5,000 members, 5 organizations of 2,000 teams: a body of
 * many pieces, each compressed on its own): Debian's curl and wget, and a reader that takes only the
 * first gzip member of a body, as browsers and zlib without a reset do. Each must read every byte.
 */
const OPENMETRICS = 'application/openmetrics-text;version=1.0.0';
const FORMATS = [
  ['text', 'text/plain'],
  ['OpenMetrics', OPENMETRICS],
] as const;

const children = new Children();
let vigil: TestDaemon;
let dir: string;

beforeAll(async () => {
  dir = tempDir('vigil-gzip-clients');
  const { estate } = await startEstate(children, 1, dir);
  vigil = await startTestDaemon(vigilConfig(estate, '127.0.0.1:0'));
}, 180_000);

afterAll(async () => {
  await vigil?.close();
  await children.stopAll();
});

function get(accept: string, encoding: string): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${vigil.url}/metrics`, { headers: { accept, 'accept-encoding': encoding } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
      })
      .on('error', reject);
  });
}

/**
 * Reads one gzip member and nothing after it: the header, the deflate stream up to its final block,
 * the trailer's CRC-32 and length. A body of several members yields only the first member's bytes.
 */
function firstMember(gz: Buffer): Buffer {
  expect([...gz.subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]);
  expect(gz[3]).toBe(0); // no optional header fields
  const out = inflateRawSync(gz.subarray(10));
  const trailer = gz.subarray(gz.length - 8);
  expect(trailer.readUInt32LE(0)).toBe(crc32(out));
  expect(trailer.readUInt32LE(4)).toBe(out.length % 2 ** 32);
  return out;
}

/**
 * A client's exit status and error output, run beside the in-process vigil (asynchronously: a
 * synchronous spawn would hold the event loop that answers it). A client that wrote part of the
 * body and stopped shows in either, or in the bytes it wrote.
 */
function run(cmd: string, args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 60_000, encoding: 'utf8' }, (err, _stdout, stderr) =>
      resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stderr }),
    );
  });
}

describe.each(FORMATS)('/metrics gzipped, %s, at the bench estate size', (_name, accept) => {
  let plain: Buffer;
  beforeAll(async () => {
    plain = (await get(accept, 'identity')).body;
  });

  it('is large and made of many pieces', async () => {
    expect(plain.length).toBeGreaterThan(4 << 20);
    const snap = vigil.daemon.snapshot(accept === OPENMETRICS ? 'openmetrics' : 'text');
    expect(snap.pieces.length).toBeGreaterThan(20);
  });

  it('is one gzip member that a first-member reader reads whole', async () => {
    const { headers, body } = await get(accept, 'gzip');
    expect(headers['content-encoding']).toBe('gzip');
    const out = firstMember(body);
    // The runtime metrics at the end change from one scrape to the next: compare all before them.
    const head = plain.subarray(0, plain.indexOf('\n# HELP process_'));
    expect(out.subarray(0, head.length).equals(head)).toBe(true);
    expect(out.length).toBeGreaterThan(head.length);
  });

  it('is read whole by curl --compressed', async () => {
    const file = join(dir, `curl-${_name}.txt`);
    const r = await run('curl', ['--silent', '--show-error', '--fail', '--compressed', '-H', `Accept: ${accept}`, '-o', file, `${vigil.url}/metrics`]);
    expect(r).toEqual({ status: 0, stderr: '' });
    const got = readFileSync(file);
    const head = plain.subarray(0, plain.indexOf('\n# HELP process_'));
    expect(got.subarray(0, head.length).equals(head)).toBe(true);
  });

  it('is read whole by wget --compression=gzip', async () => {
    const file = join(dir, `wget-${_name}.txt`);
    const r = await run('wget', ['--quiet', '--compression=gzip', `--header=Accept: ${accept}`, '-O', file, `${vigil.url}/metrics`]);
    expect(r).toEqual({ status: 0, stderr: '' });
    const got = readFileSync(file);
    const head = plain.subarray(0, plain.indexOf('\n# HELP process_'));
    expect(got.subarray(0, head.length).equals(head)).toBe(true);
  });
});

describe('gzip negotiation', () => {
  it('answers a browser (text/html first) with gzip too, now that the body is one member', async () => {
    const { headers, body } = await get('text/html,application/xhtml+xml,*/*;q=0.8', 'gzip, deflate, br');
    expect(headers['content-encoding']).toBe('gzip');
    expect(firstMember(body).length).toBeGreaterThan(4 << 20);
  });

  it('answers plain to gzip;q=0', async () => {
    const { headers } = await get('text/plain', 'gzip;q=0, identity');
    expect(headers['content-encoding']).toBeUndefined();
  });
});
