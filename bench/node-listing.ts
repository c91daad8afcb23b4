/**
 * What the client-node listing costs vigil per collection, at 1,000 and 10,000 nodes, measured in
 * one run so the two sizes compare on the same machine: CPU (user + system) per collection, wall
 * time, peak RSS and heap, requests and series. Each size runs in its own process (so its memory is
 * its own) against the agent simulator in another (so the answers' cost is not vigil's).
 *
 *   npx tsx bench/node-listing.ts
 *
 * 5% of the nodes are down (their own series, capped by max_nodes), spread over 4 pools, 2
 * datacenters and 2 classes; pages of node_page_size 500.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { nodesPlan } from '../src/collectors/agent/collector.js';
import { buildJobs, collectorStates } from '../src/collectors/index.js';
import { collectionOffloadPool } from '../src/collectors/decoding.js';
import { parseConfig } from '../src/config/load.js';
import { jobContext } from '../src/jobs/context.js';
import { linesText } from '../src/metrics/encoded-lines.js';
import { memoryPeaks } from './memory-peaks.js';

const SIZES = [1_000, 10_000];
const RUNS = 20;
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

interface Measured {
  nodes: number;
  pages: number;
  series: number;
  exposition_bytes: number;
  cpu_ms_per_collection: number;
  wall_ms_per_collection: number;
  rss_before_mib: number;
  peak_rss_mib: number;
  peak_heap_used_mib: number;
}

async function startSimulator(nodes: number): Promise<{ url: string; stop: () => void }> {
  const dir = join(tmpdir(), `vigil-bench-nodes-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const scenario = join(dir, 'scenario.json');
  writeFileSync(
    scenario,
    JSON.stringify({
      agents: [{ name: 's', role: 'server' }],
      nodes: { count: nodes, pools: ['a', 'b', 'c', 'd'], datacenters: ['dc1', 'dc2'], classes: ['', 'gpu'] },
    }),
  );
  const sim = spawn(process.execPath, ['--import', 'tsx', 'simulators/agent/main.ts', '--port=0', `--scenario=${scenario}`], {
    cwd: new URL('..', import.meta.url),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: sim.stdout }).once('line', (line) => resolve(line.split(' ')[1] ?? ''));
    sim.once('exit', (code) => reject(new Error(`simulator exited (${code})`)));
  });
  await fetch(`${url}/_sim/nodes/down`, { method: 'POST', body: JSON.stringify({ share: 0.05 }) });
  return { url, stop: () => sim.kill('SIGTERM') };
}

/** One size, in this process: RUNS collections of the node listing after 3 to warm up. */
async function measure(nodes: number): Promise<Measured> {
  const sim = await startSimulator(nodes);
  const offload = collectionOffloadPool(1);
  const ctx = jobContext(offload);
  try {
    const config = parseConfig(
      `agents:\n  - { name: s, address: "${sim.url}", schedule: "0 0 0 1 1 *", members: false, servers: false, self: false, nodes: true }\n`,
      'bench.yml',
      {},
    );
    const job = buildJobs(config, ctx, collectorStates()).find((j) => j.collector === nodesPlan.job);
    if (!job) throw new Error('no node listing job');
    const collect = async () => {
      const [outcome] = await job.run(AbortSignal.timeout(60_000));
      if (!outcome || outcome.error) throw new Error(`listing failed: ${outcome?.error?.message ?? 'no outcome'}`);
      return [...outcome.group.values()].map(linesText).join('');
    };
    for (let i = 0; i < 3; i++) await collect();
    const peaks = memoryPeaks(2);
    const cpu = process.cpuUsage();
    const started = performance.now();
    let text = '';
    for (let i = 0; i < RUNS; i++) text = await collect();
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const { rssBefore, peakRss, peakHeap } = peaks.stop();
    const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    return {
      nodes,
      pages: Number(/^scheduler_nodes_listing_pages\{[^}]*\} (\d+)$/m.exec(text)?.[1]),
      series: lines.length,
      exposition_bytes: Buffer.byteLength(text),
      cpu_ms_per_collection: Math.round(((used.user + used.system) / 1000 / RUNS) * 10) / 10,
      wall_ms_per_collection: Math.round((wall / RUNS) * 10) / 10,
      rss_before_mib: mib(rssBefore),
      peak_rss_mib: mib(peakRss),
      peak_heap_used_mib: mib(peakHeap),
    };
  } finally {
    await Promise.all(ctx.clients.map((c) => c.close()));
    await offload.close();
    sim.stop();
  }
}

const child = process.argv.find((a) => a.startsWith('--nodes='));
if (child) {
  process.stdout.write(`${JSON.stringify(await measure(Number(child.slice('--nodes='.length))))}\n`);
} else {
  const runs = SIZES.map((n) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/node-listing.ts', `--nodes=${n}`], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`size ${n} failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Measured;
  });
  const [small, large] = runs as [Measured, Measured];
  const perThousand = (m: Measured, k: keyof Measured) => Math.round(((m[k] as number) / (m.nodes / 1000)) * 100) / 100;
  const result = {
    bench: 'node-listing',
    node: process.versions.node,
    page_size: 500,
    runs_per_size: RUNS,
    runs,
    ratio_10k_to_1k: {
      cpu: Math.round((large.cpu_ms_per_collection / small.cpu_ms_per_collection) * 100) / 100,
      peak_rss_growth: Math.round(((large.peak_rss_mib - large.rss_before_mib) / Math.max(0.1, small.peak_rss_mib - small.rss_before_mib)) * 100) / 100,
      series: Math.round((large.series / small.series) * 100) / 100,
    },
    cpu_ms_per_1000_nodes: { at_1k: perThousand(small, 'cpu_ms_per_collection'), at_10k: perThousand(large, 'cpu_ms_per_collection') },
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('results/node-listing.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  for (const m of runs) {
    process.stdout.write(
      `${m.nodes} nodes: ${m.pages} pages, ${m.series} series, CPU ${m.cpu_ms_per_collection} ms and wall ${m.wall_ms_per_collection} ms per collection, ` +
        `RSS ${m.rss_before_mib} -> peak ${m.peak_rss_mib} MiB, peak heap ${m.peak_heap_used_mib} MiB\n`,
    );
  }
  process.stdout.write(`10k/1k: CPU x${result.ratio_10k_to_1k.cpu}, series x${result.ratio_10k_to_1k.series}; written to bench/results/node-listing.json\n`);
}
