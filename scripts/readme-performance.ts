import { readFileSync } from 'node:fs';

/**
 * The README's performance paragraph, written from one bench run's committed results
 * (bench/results/scale-answers.json: `npm run bench -- --collections-only`, every size measured
 * with no answer changed and with every answer changed), so that every figure in it comes from the
 * same run at the same revision and goes stale only with the results themselves. The scrape's
 * throughput against a bare server and the pushgateway, from another run, is in docs/performance.md.
 */
export const PERFORMANCE_RESULTS = 'scale-answers';

interface Results {
  machine: { revision: string; date: string; nproc: number; node?: string };
  /** The machine's load averages while the bench ran (shared machines), where it recorded them. */
  load_average?: string;
  rows: Array<{
    size: string;
    series: number;
    answers: string;
    'collection CPU s': string;
    'floor CPU s'?: string;
    '× floor'?: number;
    'RSS peak MiB'?: number;
    'RSS at rest MiB'?: number;
    'stall max ms'?: number;
    /** An idle process's longest event-loop wait during the same collections: the machine's part. */
    'idle process stall max ms'?: number;
  }>;
}

export function performanceResults(): Results {
  return JSON.parse(readFileSync(new URL(`../bench/results/${PERFORMANCE_RESULTS}.json`, import.meta.url), 'utf8')) as Results;
}

const count = (n: number) => n.toLocaleString('en-US');

export function renderPerformance(results: Results = performanceResults()): string {
  const { rows, machine, load_average: load } = results;
  const sizes = [...new Set(rows.map((r) => r.size))];
  const at = (size: string, answers: string) => rows.find((r) => r.size === size && r.answers === answers);
  const line = (size: string) => {
    const unchanged = at(size, 'unchanged');
    const changed = at(size, 'every answer changes');
    if (!unchanged || !changed) throw new Error(`bench/results/${PERFORMANCE_RESULTS}.json lacks size ${size} measured both ways`);
    const floor = (r: typeof unchanged) => (r['× floor'] === undefined ? '' : ` (${r['× floor']}×)`);
    const mib = (n: number | undefined) => (n === undefined ? '–' : count(Math.round(n)));
    const rest = `${mib(unchanged['RSS at rest MiB'])} / ${mib(changed['RSS at rest MiB'])}`;
    const longest = (key: 'stall max ms' | 'idle process stall max ms') => {
      const both = [unchanged[key], changed[key]].filter((v) => v !== undefined);
      return both.length ? String(Math.max(...both)) : '–';
    };
    const stall = `${longest('stall max ms')} / ${longest('idle process stall max ms')}`;
    return `| ${count(unchanged.series)} | ${unchanged['collection CPU s']}${floor(unchanged)} | ${changed['collection CPU s']}${floor(changed)} | ${unchanged['floor CPU s'] ?? '–'} | ${rest} | ${mib(unchanged['RSS peak MiB'])} | ${stall} |`;
  };
  const bySeries = sizes.sort((a, b) => (at(a, 'unchanged')?.series ?? 0) - (at(b, 'unchanged')?.series ?? 0));
  return [
    'What a whole collection of the estate costs vigil, in CPU seconds: when no answer changed since the',
    'last (the common case: an unchanged answer is not decoded again) and when every answer changed.',
    `Measured by \`npm run bench -- --size=${bySeries.join(',')}\` (or with \`--collections-only\`) at ${machine.revision}`,
    `(${machine.date.slice(0, 10)}, ${machine.nproc} cores${machine.node ? `, Node ${machine.node}` : ''}${load ? `, load average ${load}` : ''}):`,
    '',
    '| series | collection CPU s, answers unchanged (× floor) | every answer changed (× floor) | floor CPU s | RSS between collections MiB (unchanged / changed) | RSS peak MiB | longest stall ms: vigil / an idle process |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...bySeries.map(line),
    '',
    'The floor is the same answers fetched with the same HTTP client and digested, nothing else, in',
    'the same run (`bench/scale/floor-main.ts`): what no exporter reading these answers can go below.',
    "Its replays take turns with vigil's collections, and × floor is the median of the turns' ratios,",
    'so a slower stretch of the machine weighs on both sides of each.',
    "The RSS between collections is read ten seconds after the last, once vigil's threads have given",
    'back their young generations; the peak is the highest of the whole run.',
    "The stall is the longest delay of vigil's event loop during those collections (when a scrape",
    'would wait), beside the longest delay of an idle node process timing its event loop the same way',
    'during the same collections: what the machine alone, its cores shared with the simulators, did to',
    'an event loop.',
    'The estate holds every endpoint vigil polls by default: three nodes per secrets cluster with a',
    "token, gossip pools, a region of client nodes and jobs, and the organizations' teams.",
    '',
    'A scrape is answered from the snapshot the last collection left: what `/metrics` serves against a',
    "bare Node server returning the same bytes and against Debian's pushgateway, the memory, and the",
    'method: [docs/performance.md](docs/performance.md).',
  ].join('\n');
}
