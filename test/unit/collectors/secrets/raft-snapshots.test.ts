import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { collectionOffloadPool } from '../../../../src/collectors/decoding.js';
import { buildJobs, collectorStates } from '../../../../src/collectors/index.js';
import { jobContext } from '../../../../src/jobs/job-context.js';
import { tempFile } from '../../../helpers/daemon.js';
import { NEVER } from '../../../helpers/schedules.js';
import { parseConfig } from '../../../../src/config/load.js';
import { snapshotNames } from '../../../../src/collectors/secrets/raft-snapshot-configs.js';
import {
  cappedError,
  SNAPSHOT_ERROR_CHARS,
  snapshotFamilies,
  snapshotStatusResponse,
  snapshotsNotApplicable,
  snapshotView,
} from '../../../../src/collectors/secrets/raft-snapshot-status.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';

const fixture = (name: string): unknown => (JSON.parse(readFileSync(new URL(`../../../fixtures/${name}`, import.meta.url), 'utf8')) as { body: unknown }).body;
const read = (body: unknown) => snapshotStatusResponse.parse(body).data;
const familyValue = (name: string, view: ReturnType<typeof snapshotView>) => [...(snapshotFamilies.find((f) => f.name === name)?.samples(view) ?? [])];

describe('secrets/raft-snapshot-status', () => {
  it('reads the documented answer (no consecutive_errors, no next start): the last success only', () => {
    const v = snapshotView(read(fixture('real/secrets/raft-snapshot-status-docs.json')), new Map(), 'config1');
    expect(v).toEqual({ lastSuccess: 1603898241, consecutiveErrors: undefined, nextStart: undefined, error: undefined });
    expect(familyValue('secrets_raft_snapshot_consecutive_errors', v)).toEqual([]);
    expect(familyValue('secrets_raft_snapshot_last_error_info', v)).toEqual([]);
  });

  it('keeps the last success it saw while the attempts fail, and says the capped error', () => {
    const remembered = new Map<string, number>();
    snapshotView(read(fixture('real/secrets/raft-snapshot-status-docs.json')), remembered, 'config1');
    const v = snapshotView(read(fixture('secrets/raft-snapshot-status-failing.json')), remembered, 'config1');
    expect(v.lastSuccess).toBe(1603898241);
    expect(v.consecutiveErrors).toBe(4);
    expect(v.nextStart).toBe(Date.parse('2020-10-28T16:17:21-04:00') / 1000);
    expect(Array.from(v.error ?? '').length).toBeLessThanOrEqual(SNAPSHOT_ERROR_CHARS);
    expect(v.error).toMatch(/^error writing snapshot to storage: operation error S3/);
    expect(familyValue('secrets_raft_snapshot_last_error_info', v)).toEqual([{ labels: { error: v.error }, value: 1 }]);
  });

  it("exports no last success when it saw none: a failing attempt's end is no success", () => {
    const v = snapshotView(read(fixture('secrets/raft-snapshot-status-failing.json')), new Map(), 'config1');
    expect(v.lastSuccess).toBeUndefined();
    expect(familyValue('secrets_raft_snapshot_last_success_timestamp_seconds', v)).toEqual([]);
  });

  it('counts an error without consecutive_errors (an older server) as failing, not as a success', () => {
    const v = snapshotView(read({ data: { last_snapshot_end: '2020-10-28T11:17:21Z', last_snapshot_error: 'disk full' } }), new Map(), 'a');
    expect(v).toMatchObject({ lastSuccess: undefined, error: 'disk full', consecutiveErrors: undefined });
  });

  it('tolerates every field missing or mistyped: each costs only its own series', () => {
    const v = snapshotView(read({ data: { consecutive_errors: 'many', next_snapshot_start: {}, last_snapshot_end: null } }), new Map(), 'a');
    expect(v).toEqual({ consecutiveErrors: undefined, lastSuccess: undefined, nextStart: undefined, error: undefined });
  });

  it('caps the error text to one line of bounded characters, never splitting a character', () => {
    const long = `line one\nline\ttwo ${'é😀'.repeat(200)}`;
    const c = cappedError(long);
    expect(c).not.toMatch(/[\n\t]/);
    expect(Array.from(c).length).toBe(SNAPSHOT_ERROR_CHARS);
    expect(c.endsWith('…')).toBe(true);
    expect(cappedError('short')).toBe('short');
  });

  it("keeps no credentials of a destination's URL: neither its user and password nor its query's signature", () => {
    expect(cappedError('error writing snapshot: Put "https://acct.blob.core.windows.net/c/snap?sv=2021-08-06&sig=SeCrEt%3D": 403')).toBe(
      'error writing snapshot: Put "https://acct.blob.core.windows.net/c/snap?…": 403',
    );
    expect(cappedError('dial https://vault:hunter2@minio.internal:9000/bucket: refused')).toBe('dial https://minio.internal:9000/bucket: refused');
    const many = `${'a.'.repeat(200_000)}https://u:p@x/?s=1`;
    expect(cappedError(many)).not.toContain('u:p');
  });

  it.each([
    [400, 'raft storage is not in use', true],
    [404, 'enterprise-only feature', true],
    [405, 'unsupported operation', true],
    [400, 'path disabled in replication DR secondary mode', true],
    [403, 'permission denied', false],
    [500, 'internal error', false],
  ])('a %d "%s" is not applicable: %s', (status, message, expected) => {
    expect(snapshotsNotApplicable(new UpstreamError(status >= 500 ? 'http_5xx' : 'http_4xx', message, status))).toBe(expected);
  });
});

describe('the snapshot names polled', () => {
  it('are the configured first, then the listed, each once, bounded with the rest counted', () => {
    expect(snapshotNames(['b', 'a'], ['a', 'c', 'd'], 3)).toEqual({ names: ['b', 'a', 'c'], dropped: 1 });
    expect(snapshotNames([], [], 3)).toEqual({ names: [], dropped: 0 });
  });
});

const errorOf = (snapshots: string): string => {
  try {
    parseConfig(`secrets:\n  - { name: t, address: "http://127.0.0.1:1", snapshots: ${snapshots} }\n`, 'v');
    return '';
  } catch (e) {
    return String(e);
  }
};

describe('the snapshots config', () => {
  it('takes names, a listing, a schedule and a bound', () => {
    expect(errorOf('{ names: [daily, hourly], schedule: "0 */5 * * * *", max_names: 4 }')).toBe('');
    expect(errorOf('{ list: true }')).toBe('');
  });

  it.each([
    ['{}', /snapshots.*names no snapshot configuration/s],
    ['{ names: [a, a] }', /snapshots\.names.*each name at most once/s],
    ['{ names: ["a/b"] }', /snapshots\.names\[0\].*without "\/"/s],
    ['{ names: [a], max_names: 0 }', /snapshots\.max_names/],
    ['{ names: [a], max_names: 100000 }', /snapshots\.max_names/],
    ['{ names: [a], schedule: "every hour" }', /snapshots\.schedule.*invalid cron/s],
    ['{ names: [a], interval: 5 }', /snapshots.*interval/s],
  ])('refuses %s, naming the key and the problem', (block, message) => {
    expect(errorOf(block)).toMatch(message);
  });
});

describe('the snapshots job', () => {
  let listing = 200;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path.endsWith('/snapshot-auto/config')) return listing === 200 ? json(200, { data: { keys: ['listed'] } }) : json(listing, { errors: ['boom'] });
    if (path.includes('/snapshot-auto/status/')) return json(200, { data: { last_snapshot_end: '2025-08-29T17:41:55+02:00', last_snapshot_error: '' } });
    json(404, { errors: [] });
  });
  const offload = collectionOffloadPool(1);
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await offload.close();
  });

  it('keeps the names last listed through a listing that failed, and drops them once the listing is refused', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const token = tempFile('token', 'x\n');
    const config = parseConfig(
      `secrets:\n  - { name: t, address: "${address}", token_file: ${token}, schedule: "${NEVER}", nodes: { enabled: false }, snapshots: { names: [named], list: true, schedule: "${NEVER}" } }\n`,
      'v',
    );
    const ctx = jobContext(offload);
    const job = buildJobs(config, ctx, collectorStates()).find((j) => j.collector === 'secrets_snapshots')!;
    const polled = async () =>
      (await job.run(AbortSignal.timeout(10_000))).flatMap((o) => (o.part.startsWith('secrets/raft-snapshot-status ') ? [o.part.split(' ')[1]] : []));
    try {
      expect(await polled()).toEqual(['named', 'listed']);
      listing = 500;
      expect(await polled()).toEqual(['named', 'listed']);
      listing = 403;
      expect(await polled()).toEqual(['named']);
    } finally {
      await Promise.all(ctx.clients.map((c) => c.close()));
    }
  });
});
