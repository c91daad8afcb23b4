/**
 * What the region's workload listings (jobs with their summaries, evaluations, deployments) cost
 * vigil per collection, at 1,000 and 10,000 jobs (10 allocations each: 100,000 allocations'
 * summaries at the larger size), measured in one run so the sizes compare on the same machine: CPU
 * per collection, wall time, peak RSS and heap, requests and series (see listing-bench.ts). Two
 * states each: every page unchanged since the last collection (the common case: a page's digest,
 * no decoding), and every page changed (a job of each page fails between two collections).
 *
 *   npx tsx bench/workload-listing.ts
 *
 * 1% of the jobs fail in a loop (their own series, capped by workload.max_jobs); pages of 500.
 */
import { workloadPlan } from '../src/collectors/agent/collector.js';
import { childSize, eachSize, measureListing, startAgentSimulator, writeResult, type Collected } from './listing-bench.js';

const SIZES = [1_000, 10_000];
const RUNS = 10;
const PAGE = 500;

type Figures = Omit<Collected, 'text'>;
interface Measured {
  jobs: number;
  pages: number;
  requests_per_collection: number;
  unchanged: Figures;
  changed: Figures;
}

const config = (url: string) =>
  `agents:\n  - { name: s, address: "${url}", schedule: "0 0 0 1 1 *", members: false, servers: false, self: false, autopilot: false, nodes: false, ` +
  `workload: { schedule: "0 0 0 1 1 *", page_size: ${PAGE}, max_pages: 1000 } }\n`;

/** Requests of one collection: the pages of each listing, from what the simulator holds (evaluations: those the filter keeps). */
async function requestsOf(url: string): Promise<number> {
  const state = (await (await fetch(`${url}/_sim/state`)).json()) as { workload: Record<'jobs' | 'evaluations' | 'deployments', Record<string, number>> };
  const total = (counts: Record<string, number>, keep: (k: string) => boolean = () => true) =>
    Object.entries(counts).reduce((n, [k, v]) => n + (keep(k) ? v : 0), 0);
  const pages = (n: number) => Math.max(1, Math.ceil(n / PAGE));
  const w = state.workload;
  return pages(total(w.jobs)) + pages(total(w.evaluations, (s) => s === 'blocked' || s === 'pending')) + pages(total(w.deployments));
}

async function measure(jobs: number): Promise<Measured> {
  // Every hundredth job fails: one every 10 ms (each page changes between two collections), or never.
  const failing = (everyMs: number): Array<[string, object]> =>
    Array.from({ length: Math.ceil(jobs / 100) }, (_, i) => [
      `/_sim/jobs/default/job-${String(i * 100 + 1).padStart(String(jobs).length, '0')}/fail`,
      { every_ms: everyMs },
    ]);
  const run = async (everyMs: number) => {
    const sim = await startAgentSimulator({ agents: [{ name: 's', role: 'server' }], jobs: { count: jobs, allocations: 10 } }, failing(everyMs));
    try {
      const { text, ...m } = await measureListing(sim.url, config, workloadPlan.job, RUNS);
      return { m, text, requests: await requestsOf(sim.url) };
    } finally {
      sim.stop();
    }
  };
  const unchanged = await run(3_600_000);
  const changed = await run(10);
  return {
    jobs,
    pages: Number(/^scheduler_jobs_listing_pages\{[^}]*\} (\d+)$/m.exec(unchanged.text)?.[1]),
    requests_per_collection: Math.round(unchanged.requests * 10) / 10,
    unchanged: unchanged.m,
    changed: changed.m,
  };
}

const size = childSize();
if (size !== undefined) {
  process.stdout.write(`${JSON.stringify(await measure(size))}\n`);
} else {
  const runs = eachSize<Measured>('bench/workload-listing.ts', SIZES);
  const [small, large] = runs as [Measured, Measured];
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const result = {
    bench: 'workload-listing',
    node: process.versions.node,
    page_size: PAGE,
    allocations_per_job: 10,
    runs_per_size: RUNS,
    runs,
    ratio_10k_to_1k: {
      cpu_unchanged: ratio(large.unchanged.cpu_ms_per_collection, small.unchanged.cpu_ms_per_collection),
      cpu_changed: ratio(large.changed.cpu_ms_per_collection, small.changed.cpu_ms_per_collection),
      series: ratio(large.unchanged.series, small.unchanged.series),
    },
    changed_to_unchanged_at_10k: ratio(large.changed.cpu_ms_per_collection, large.unchanged.cpu_ms_per_collection),
  };
  writeResult('workload-listing', result);
  for (const m of runs) {
    for (const state of ['unchanged', 'changed'] as const) {
      const f = m[state];
      process.stdout.write(
        `${m.jobs} jobs, ${state}: ${m.pages} pages, ${m.requests_per_collection} requests, ${f.series} series, CPU ${f.cpu_ms_per_collection} ms and wall ${f.wall_ms_per_collection} ms per collection, ` +
          `RSS ${f.rss_before_mib} -> peak ${f.peak_rss_mib} MiB, peak heap ${f.peak_heap_used_mib} MiB\n`,
      );
    }
  }
  process.stdout.write(
    `10k/1k: CPU x${result.ratio_10k_to_1k.cpu_unchanged} unchanged, x${result.ratio_10k_to_1k.cpu_changed} changed; written to bench/results/workload-listing.json\n`,
  );
}
