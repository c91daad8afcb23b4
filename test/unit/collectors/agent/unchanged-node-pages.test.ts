import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCollector } from '../../../../src/collectors/agent/collector.js';
import { NODES_PAGE_OFFLOAD_BYTES, nodesEndpoint } from '../../../../src/collectors/agent/nodes.js';
import { collectionOffloadPool } from '../../../../src/collectors/decoding.js';
import { parseConfig } from '../../../../src/config/load.js';
import { jobContext } from '../../../../src/jobs/job-context.js';
import { linesText } from '../../../../src/metrics/encoded-lines.js';
import { NEVER } from '../../../helpers/schedules.js';
import { tempDir } from '../../../helpers/temp-dir.js';

/**
 * A region of 20 pages of 500 client nodes, served from loopback as the API pages them (per_page,
 * then the next-token header); a node's status can be changed between listings. Each page is larger
 * than NODES_PAGE_OFFLOAD_BYTES, so it is decoded on the worker thread; a page byte-identical to the
 * last is not decoded again.
 */
const PAGES = 20;
const PER_PAGE = 500;
const status = new Map<number, string>();
const nodeOf = (i: number) => ({
  ID: `0b5e${String(i).padStart(6, '0')}-7c3a-4f1e-9d2b-node`,
  Name: `client-${i}`,
  Address: `10.0.${Math.floor(i / 250)}.${i % 250}`,
  Datacenter: i % 2 ? 'dc1' : 'dc2',
  NodeClass: '',
  NodePool: ['default', 'gpu', 'batch'][i % 3],
  Status: status.get(i) ?? 'ready',
  StatusDescription: '',
  SchedulingEligibility: 'eligible',
  Drain: false,
  Version: '1.9.3',
  Drivers: { docker: { Detected: true, Healthy: true, HealthDescription: 'Healthy' }, exec: { Detected: true, Healthy: true } },
  Attributes: { 'os.name': 'debian', 'cpu.arch': 'amd64', 'kernel.name': 'linux' },
});
const pageBody = (page: number) => JSON.stringify(Array.from({ length: PER_PAGE }, (_, k) => nodeOf(page * PER_PAGE + k)));

let server: http.Server;
let address: string;
const offload = collectionOffloadPool(1);
const dir = tempDir('vigil-unchanged-nodes-');
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, 'tok\n');

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    if (!req.url?.startsWith('/v1/nodes')) return void res.writeHead(404).end();
    const page = Number(q.get('next_token') ?? 0);
    const next = page + 1 < PAGES ? { 'X-Nomad-NextToken': String(page + 1) } : {};
    res.writeHead(200, { 'content-type': 'application/json', ...next }).end(pageBody(page));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await offload.close();
  server.close();
});

/** The agent's node-listing job as the engine builds it; each run's node series as lines, and the pages reused so far. */
function nodesJob() {
  const ctx = jobContext(offload);
  const yaml = `agents:\n  - { name: r1, address: "${address}", token_file: ${tokenFile}, schedule: "${NEVER}", nodes_schedule: "${NEVER}", workload: { schedule: "${NEVER}" }, node_page_size: ${PER_PAGE} }\n`;
  const config = parseConfig(yaml, 'vigil.yml', {});
  const job = agentCollector.jobs(config.agents, ctx, agentCollector.state!()).find((j) => j.collector === 'scheduler_nodes');
  if (!job) throw new Error('no node-listing job');
  const reused = () => ctx.upstreamStats.get('vigil/upstream/agents/r1')?.unchanged.get(nodesEndpoint.id) ?? 0;
  const run = async () => {
    const part = (await job.run(AbortSignal.timeout(60_000))).find((p) => p.part === nodesEndpoint.id);
    const lines = [...(part?.group.values() ?? [])].flatMap((l) => linesText(l).split('\n')).filter((l) => l.startsWith('scheduler_node'));
    return { error: part?.error, lines: new Set(lines) };
  };
  return { run, reused, close: () => Promise.all(ctx.clients.map((c) => c.close())) };
}

const minus = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x)).sort();

describe('a node listing whose pages did not change', () => {
  it('decodes each page on the worker, reuses every unchanged page, and a node gone down on page 7 changes exactly its series', async () => {
    status.clear();
    expect(Buffer.byteLength(pageBody(0))).toBeGreaterThan(NODES_PAGE_OFFLOAD_BYTES);
    const job = nodesJob();
    const first = await job.run();
    expect(first.error).toBeUndefined();
    expect(job.reused()).toBe(0);
    expect([...first.lines].filter((l) => l.startsWith('scheduler_nodes{') && l.includes('status="ready"')).map((l) => Number(l.split(' ')[1]))).toEqual(
      expect.arrayContaining([1667, 1667, 1666, 1667, 1667, 1666]),
    );

    const again = await job.run();
    expect(job.reused()).toBe(PAGES);
    expect(again.lines).toEqual(first.lines);

    const gone = 7 * PER_PAGE + 43; // odd and a multiple of 3: dc1, pool 'default'
    status.set(gone, 'down');
    const changed = await job.run();
    expect(job.reused()).toBe(PAGES + PAGES - 1);
    const id = nodeOf(gone).ID;
    expect(minus(changed.lines, first.lines)).toEqual([
      `scheduler_node_status{target="r1",node="client-${gone}",node_id="${id}",datacenter="dc1",node_pool="default",node_class="",status="down",eligibility="eligible"} 1`,
      'scheduler_nodes{target="r1",datacenter="dc1",node_pool="default",node_class="",status="down",eligibility="eligible",drain="false"} 1',
      'scheduler_nodes{target="r1",datacenter="dc1",node_pool="default",node_class="",status="ready",eligibility="eligible",drain="false"} 1666',
    ]);
    await job.close();
  });
});
