import { readFileSync } from 'node:fs';

/**
 * The README's performance paragraph, written from the committed results of `npm run bench`
 * (bench/results/scale-*.json, the full-size rows) so that its figures are the measured ones and
 * go stale only with the results themselves.
 */
interface Results<R> {
  machine: { revision: string; date: string; nproc: number };
  /** The machine's load averages while the bench ran (shared machines), where it recorded them. */
  load_average?: string;
  rows: R[];
}
type Throughput = { size: string; server: string; encoding: string; 'vigil/ceiling'?: number; 'vigil/pushgateway'?: number };
type Answers = { size: string; series: number; answers: string; 'collection CPU s': string; 'us/series': number };
type Scaling = { size: string; series: number; bytes: number; 'collection CPU s': string; 'scrape p99 ms collecting (gzip)': number };

const results = <R>(name: string): Results<R> => JSON.parse(readFileSync(new URL(`../bench/results/${name}.json`, import.meta.url), 'utf8')) as Results<R>;

const times = (n: number | undefined) => `${(n ?? NaN).toLocaleString('en-US', { maximumFractionDigits: n !== undefined && n >= 10 ? 0 : 2 })} ×`;

/** A collection at the largest size measured both ways: with no answer changed (the common case) and with every answer changed. */
function bothWays(): string {
  const { rows, machine, load_average: load } = results<Answers>('scale-answers');
  const largest = rows.reduce<Answers | undefined>((a, r) => (!a || r.series > a.series ? r : a), undefined);
  const at = (answers: string) => rows.find((r) => r.size === largest?.size && r.answers === answers);
  const unchanged = at('unchanged');
  const changed = at('every answer changes');
  if (!largest || !unchanged || !changed) throw new Error('bench/results/scale-answers.json lacks a size measured both ways');
  return [
    `At ${largest.series.toLocaleString('en-US')} series a collection costs ${unchanged['collection CPU s']} CPU s when no answer changed since the last`,
    `(the common case: unchanged answers are not decoded again) and ${changed['collection CPU s']} CPU s when every answer changed, measured by`,
    `\`npm run bench -- --size=${largest.size} --collections-only\` at ${machine.revision} (${machine.nproc} cores${load ? `, load average ${load}` : ''}).`,
  ].join('\n');
}

export function renderPerformance(): string {
  const throughput = results<Throughput>('scale-throughput');
  const scaling = results<Scaling>('scale-scaling');
  const ratio = (encoding: string) => throughput.rows.find((r) => r.size === 'full' && r.server === 'ratio' && r.encoding === encoding);
  const full = scaling.rows.find((r) => r.size === 'full');
  if (!full) throw new Error('bench/results/scale-scaling.json has no full-size row');
  const identity = ratio('identity');
  const gzip = ratio('gzip');
  const mb = (full.bytes / 1e6).toFixed(1);
  return [
    `At ${full.series.toLocaleString('en-US')} series (${mb} MB) \`/metrics\` serves ${times(identity?.['vigil/ceiling'])} the throughput of a bare Node`,
    `server returning the same bytes from memory (${times(gzip?.['vigil/ceiling'])} with gzip) and ${times(identity?.['vigil/pushgateway'])}`,
    `(${times(gzip?.['vigil/pushgateway'])} with gzip) that of Debian's pushgateway holding the same series; a full collection costs`,
    `${full['collection CPU s']} CPU s and a gzip scrape during one answers in ${full['scrape p99 ms collecting (gzip)']} ms (p99). Measured by \`npm run bench\``,
    `at ${throughput.machine.revision} (${throughput.machine.date.slice(0, 10)}, ${throughput.machine.nproc} cores); method and every size:`,
    '[docs/performance.md](docs/performance.md).',
    bothWays(),
  ].join('\n');
}
