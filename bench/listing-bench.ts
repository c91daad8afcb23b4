/**
 * What one of an agent's listings (the client nodes, the region's workload) costs vigil per
 * collection, measured in this process against the agent simulator in another (so the answers' cost
 * is not vigil's): CPU (user + system) per collection, wall time, peak RSS and heap, series. The
 * benches of each listing (`node-listing.ts`, `workload-listing.ts`) run one size per process, so
 * each size's memory is its own, and compare the sizes of one run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildJobs, collectorStates } from '../src/collectors/index.js';
import { collectionOffloadPool } from '../src/collectors/decoding.js';
import { parseConfig } from '../src/config/load.js';
import { jobContext } from '../src/jobs/job-context.js';
import { linesText } from '../src/metrics/encoded-lines.js';
import { memoryPeaks } from './memory-peaks.js';

export const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export interface Collected {
  series: number;
  exposition_bytes: number;
  cpu_ms_per_collection: number;
  wall_ms_per_collection: number;
  rss_before_mib: number;
  peak_rss_mib: number;
  peak_heap_used_mib: number;
  /** The last collection's exposition, for the bench's own figures (pages, requests). */
  text: string;
}

/** Starts the agent simulator on `scenario` in a process of its own; `faults` are POSTed to it (path, body) once it listens. */
export async function startAgentSimulator(scenario: object, faults: Array<[string, object]> = []): Promise<{ url: string; stop: () => void }> {
  const dir = join(tmpdir(), `vigil-bench-listing-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'scenario.json');
  writeFileSync(file, JSON.stringify(scenario));
  const sim = spawn(process.execPath, ['--import', 'tsx', 'simulators/agent/main.ts', '--port=0', `--scenario=${file}`], {
    cwd: new URL('..', import.meta.url),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: sim.stdout }).once('line', (line) => resolve(line.split(' ')[1] ?? ''));
    sim.once('exit', (code) => reject(new Error(`simulator exited (${code})`)));
  });
  for (const [path, body] of faults) {
    const r = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  }
  return { url, stop: () => sim.kill('SIGTERM') };
}

/** `runs` collections of the job `collector` of the one agent target `config` gives, after 3 to warm up. */
export async function measureListing(url: string, config: (url: string) => string, collector: string, runs: number): Promise<Collected> {
  const offload = collectionOffloadPool(1);
  const ctx = jobContext(offload);
  try {
    const job = buildJobs(parseConfig(config(url), 'bench.yml', {}), ctx, collectorStates()).find((j) => j.collector === collector);
    if (!job) throw new Error(`no job ${collector}`);
    const collect = async () => {
      const outcomes = await job.run(AbortSignal.timeout(60_000));
      const failed = outcomes.find((o) => o.error);
      if (failed) throw new Error(`${failed.part} failed: ${failed.error?.message ?? ''}`);
      return outcomes.flatMap((o) => [...o.group.values()].map(linesText)).join('');
    };
    for (let i = 0; i < 3; i++) await collect();
    const peaks = memoryPeaks(2);
    const cpu = process.cpuUsage();
    const started = performance.now();
    let text = '';
    for (let i = 0; i < runs; i++) text = await collect();
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const { rssBefore, peakRss, peakHeap } = peaks.stop();
    return {
      series: text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length,
      exposition_bytes: Buffer.byteLength(text),
      cpu_ms_per_collection: Math.round(((used.user + used.system) / 1000 / runs) * 10) / 10,
      wall_ms_per_collection: Math.round((wall / runs) * 10) / 10,
      rss_before_mib: mib(rssBefore),
      peak_rss_mib: mib(peakRss),
      peak_heap_used_mib: mib(peakHeap),
      text,
    };
  } finally {
    await Promise.all(ctx.clients.map((c) => c.close()));
    await offload.close();
  }
}

/** Runs `script` once per size, each in a process of its own (`--size=N`), and returns what each printed last (JSON). */
export function eachSize<M>(script: string, sizes: readonly number[]): M[] {
  return sizes.map((n) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', script, `--size=${n}`], { cwd: new URL('..', import.meta.url), encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`size ${n} failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as M;
  });
}

/** The size this process measures, when it is a child of `eachSize`. */
export const childSize = (): number | undefined => {
  const arg = process.argv.find((a) => a.startsWith('--size='));
  return arg === undefined ? undefined : Number(arg.slice('--size='.length));
};

export function writeResult(name: string, result: object): void {
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(`results/${name}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
}
