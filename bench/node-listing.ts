/**
 * What the client-node listing costs vigil per collection, at 1,000 and 10,000 nodes, measured in
 * one run so the two sizes compare on the same machine: CPU (user + system) per collection, wall
 * time, peak RSS and heap, requests and series (see listing-bench.ts).
 *
 *   npx tsx bench/node-listing.ts
 *
 * 5% of the nodes are down (their own series, capped by max_nodes), spread over 4 pools, 2
 * datacenters and 2 classes; pages of node_page_size 500.
 */
import { nodesPlan } from '../src/collectors/agent/collector.js';
import { childSize, eachSize, measureListing, startAgentSimulator, writeResult, type Collected } from './listing-bench.js';

const SIZES = [1_000, 10_000];
const RUNS = 20;

type Measured = Omit<Collected, 'text'> & { nodes: number; pages: number };

async function measure(nodes: number): Promise<Measured> {
  const sim = await startAgentSimulator(
    { agents: [{ name: 's', role: 'server' }], nodes: { count: nodes, pools: ['a', 'b', 'c', 'd'], datacenters: ['dc1', 'dc2'], classes: ['', 'gpu'] } },
    [['/_sim/nodes/down', { share: 0.05 }]],
  );
  try {
    const config = (url: string) =>
      `agents:\n  - { name: s, address: "${url}", schedule: "0 0 0 1 1 *", members: false, servers: false, self: false, nodes: true }\n`;
    const { text, ...m } = await measureListing(sim.url, config, nodesPlan.job, RUNS);
    return { nodes, pages: Number(/^scheduler_nodes_listing_pages\{[^}]*\} (\d+)$/m.exec(text)?.[1]), ...m };
  } finally {
    sim.stop();
  }
}

const size = childSize();
if (size !== undefined) {
  process.stdout.write(`${JSON.stringify(await measure(size))}\n`);
} else {
  const runs = eachSize<Measured>('bench/node-listing.ts', SIZES);
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
  writeResult('node-listing', result);
  for (const m of runs) {
    process.stdout.write(
      `${m.nodes} nodes: ${m.pages} pages, ${m.series} series, CPU ${m.cpu_ms_per_collection} ms and wall ${m.wall_ms_per_collection} ms per collection, ` +
        `RSS ${m.rss_before_mib} -> peak ${m.peak_rss_mib} MiB, peak heap ${m.peak_heap_used_mib} MiB\n`,
    );
  }
  process.stdout.write(`10k/1k: CPU x${result.ratio_10k_to_1k.cpu}, series x${result.ratio_10k_to_1k.series}; written to bench/results/node-listing.json\n`);
}
