import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { readFixture } from '../helpers/fixtures.js';

/**
 * One hostile target answering, every second, with the largest answers a target accepts (a
 * replication status of 60,000 secondaries, about 15 MB, under the default max_response_size of
 * 16 MiB; the red team's raft autopilot state of 12,000 servers, which froze every collector for a
 * minute), beside a calm one on the same schedule, in the daemon's collection thread. The calm
 * target keeps committing: it never goes stale as VigilCollectionStale counts it (three schedule
 * intervals without a success), while the large answers are read and mapped.
 */
const SECONDARIES = 60_000;
const RAFT_SERVERS = 12_000;
const EVERY_SECOND = '* * * * * *';
const SECONDS = 10;

function hugeStatus(): string {
  const secondaries = Array.from({ length: SECONDARIES }, (_, i) => ({
    node_id: `secondary-${i}`,
    api_address: `https://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8200`,
    cluster_address: `https://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8201`,
    connection_status: i % 7 === 0 ? 'disconnected' : 'connected',
    last_heartbeat: '2026-11-28T10:00:00Z',
  }));
  const known = secondaries.map((s) => s.node_id);
  return JSON.stringify({ data: { mode: 'primary', cluster_id: 'c1', state: 'running', known_secondaries: known, secondaries, last_wal: 10 } });
}

function hugeAutopilot(): string {
  const servers: Record<string, unknown> = {};
  for (let i = 0; i < RAFT_SERVERS; i++) {
    const id = `raft-${i}`;
    servers[id] = {
      id,
      name: id,
      address: `10.0.${i >> 8}.${i & 255}:8201`,
      last_index: 990 + (i % 10),
      healthy: i % 10 !== 5,
      status: i === 0 ? 'leader' : 'voter',
    };
  }
  return JSON.stringify({ data: { healthy: false, failure_tolerance: 1, leader: 'raft-0', servers } });
}

let upstream: http.Server;
let vigil: TestDaemon;
let served = 0;

beforeAll(async () => {
  const huge = hugeStatus();
  const autopilot = hugeAutopilot();
  upstream = http.createServer((req, res) => {
    const send = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (req.url === '/v1/agent/health') return send(readFixture('agent/health-server.json'));
    if (req.url === '/v1/sys/storage/raft/autopilot/state') {
      served++;
      return send(autopilot);
    }
    if (req.url?.startsWith('/v1/sys/health')) return send('{"initialized":true,"sealed":false,"standby":false,"version":"1.18.0","cluster_name":"c"}');
    if (req.url === '/v1/sys/replication/performance/status') {
      served++;
      return send(huge);
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":["no route"]}');
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const off = 'members: false, servers: false, self: false, host: false, token: false, autopilot: false, nodes: false';
  vigil = await startTestDaemon(
    `agents:\n  - { name: calm, address: "${url}", schedule: "${EVERY_SECOND}", ${off} }\n` +
      `secrets:\n  - { name: huge, address: "${url}", schedule: "${EVERY_SECOND}", timeout: 30s, replication_kinds: [performance], nodes: { addresses: ["${url}"] } }\n`,
    { collectionThread: true },
  );
}, 60_000);

afterAll(async () => {
  await vigil?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

const lastSuccess = (m: Map<string, number>, target: string) =>
  [...m].find(([k]) => k.startsWith('vigil_collector_last_success_timestamp_seconds{') && k.includes(`target="${target}"`))?.[1];

describe('a target answering with the largest answer it may', () => {
  it('never makes a calm target stale while its answers are read and mapped', async () => {
    let worst = 0;
    let last: number | undefined;
    const commits = new Set<number>();
    const started = Date.now();
    while (Date.now() - started < SECONDS * 1000) {
      const m = await vigil.metrics();
      const calm = lastSuccess(m, 'calm');
      if (calm !== undefined) {
        commits.add(calm);
        last = calm;
      }
      if (last !== undefined) worst = Math.max(worst, Date.now() / 1000 - last);
      await sleep(200);
    }
    const m = await vigil.metrics();
    // The hostile answers were read, again and again, and kept within their bound.
    expect(served).toBeGreaterThanOrEqual(6);
    expect(m.get('secrets_replication_peer_series_dropped{kind="performance",target="huge"}')).toBe(2 * (SECONDARIES - 100));
    expect(m.get('secrets_replication_up{kind="performance",target="huge"}')).toBe(1);
    expect(m.get('secrets_raft_server_series_dropped{target="huge"}')).toBe(RAFT_SERVERS - 100);
    // The calm target committed all along: never three of its intervals without a success.
    expect(commits.size).toBeGreaterThanOrEqual(SECONDS / 2);
    expect(worst).toBeLessThan(3);
  }, 60_000);
});
