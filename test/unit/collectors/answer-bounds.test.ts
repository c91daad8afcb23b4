import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGE_ANSWER_BYTES } from '../../../src/collectors/decode-answer.js';
import { ENDPOINTS } from '../../../src/collectors/index.js';
import { MAX_LABEL_VALUE } from '../../../src/support/label-value.js';
import { CorpusServer, outcomeOf, realAnswers, type RealAnswer, type Scrape } from '../../helpers/real-corpus.js';
import { dimensionsOf, inflate, stringsOf, withLongStrings } from '../../helpers/inflate.js';

/**
 * Every endpoint's real answers, inflated along each dimension they can grow in (every list and
 * map: 10 and 1,000 times the items; every string: a megabyte), collected as the daemon collects
 * them with every cap of the targets at a test's size. Each inflated answer is refused with a reason
 * that says so, or kept within the caps: the series stop growing with the items, no label value is
 * longer than vigil keeps, and the time to collect grows with the size, not its square.
 */
const CAPS = 5;
const server = new CorpusServer({
  secrets: `max_replication_peers: ${CAPS}`,
  secretsNodes: `max_raft_servers: ${CAPS}`,
  secretsMerkle: `max_trees: ${CAPS}`,
  agents: `max_members: ${CAPS}, max_nodes: ${CAPS}, max_raft_servers: ${CAPS}, max_host_disks: ${CAPS}, workload: {max_jobs: ${CAPS}, max_job_groups: ${CAPS}, max_blocked_jobs: ${CAPS}, max_deployments: ${CAPS}, max_deployment_groups: ${CAPS}}`,
  teams: `max_teams: ${CAPS}`,
});
const REFUSALS = new Set(['down:too_large', 'down:schema', 'down:decode']);
/** 100 times the items must not cost 100 times the series: past the caps (10 times any answer's items are past them), a few more at most. */
const PLATEAU = 2;
/** Collecting 100 times the items may take 100 times as long, not 10,000 times: the ratio allowed, with room for a noisy machine. */
const LINEAR = 400;

const answers = realAnswers().filter((a) => a.outcome === 'up' && a.body !== undefined && (a.status ?? 200) === 200);

beforeAll(() => server.start());
afterAll(() => server.stop());

async function timed(a: RealAnswer, body: unknown): Promise<{ scrape: Scrape; ms: number }> {
  const started = performance.now();
  const scrape = await server.scrape({ ...a, body });
  return { scrape, ms: performance.now() - started };
}

const labelValues = (text: string) => [...text.matchAll(/="((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] as string);

describe.each(answers)('$file, inflated', (a: RealAnswer) => {
  it.each(dimensionsOf(a.body).map((d) => [d.join('.') || '(top)', d] as const))(
    'along %s: refused, or kept within the caps in linear time',
    async (_name, dim) => {
      const small = await timed(a, inflate(a.body, dim, 10));
      const large = await timed(a, inflate(a.body, dim, 1000));
      const outcome = outcomeOf(large.scrape.outcome);
      if (outcome !== 'up') {
        expect(REFUSALS.has(outcome), `${outcome}: ${large.scrape.outcome.error?.message ?? ''}`).toBe(true);
        expect(large.scrape.outcome.error?.message.length).toBeLessThanOrEqual(1100);
        return;
      }
      expect(outcomeOf(small.scrape.outcome)).toBe('up');
      expect(large.scrape.series.size).toBeLessThanOrEqual(PLATEAU * small.scrape.series.size + 10);
      expect(large.ms / Math.max(small.ms, 1)).toBeLessThan(LINEAR);
    },
    120_000,
  );

  it('keeps no megabyte string: each is refused, or folded where it is kept', async () => {
    const problems: string[] = [];
    for (const path of stringsOf(a.body)) {
      const { scrape } = await timed(a, withLongStrings(a.body, path, 1 << 20));
      const outcome = outcomeOf(scrape.outcome);
      if (outcome !== 'up') {
        if (!REFUSALS.has(outcome)) problems.push(`${path}: ${outcome}`);
        if ((scrape.outcome.error?.message.length ?? 0) > 1100) problems.push(`${path}: an error of ${scrape.outcome.error?.message.length} characters`);
        continue;
      }
      const longest = Math.max(0, ...labelValues(scrape.text).map((v) => v.length));
      if (longest > MAX_LABEL_VALUE + 64) problems.push(`${path}: a label value of ${longest} characters`);
      if (scrape.text.length > 64 * 1024) problems.push(`${path}: ${scrape.text.length} characters of series`);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});

describe.each(answers)('$file, padded past the size decoded on a decoding thread', (a: RealAnswer) => {
  it('reads the same there as in the collection thread', async () => {
    const here = await server.scrape(a);
    const there = await server.scrape({ ...a, text: `${JSON.stringify(a.body)}${' '.repeat(LARGE_ANSWER_BYTES)}` });
    expect(outcomeOf(there.outcome)).toBe(outcomeOf(here.outcome));
    // When vigil first saw something is the time of each scrape, not what the answer says.
    const read = (x: Scrape) => new Map([...x.series].filter(([k]) => !k.includes('first_seen_timestamp')));
    expect(read(there)).toEqual(read(here));
  });
});

describe('the inflated answers', () => {
  it.each(ENDPOINTS.map(({ endpoint }) => [endpoint.id]))('cover %s with a dimension to grow', (id) => {
    const dims = answers.filter((a) => a.endpoint === id).flatMap((a) => [...dimensionsOf(a.body), ...stringsOf(a.body)]);
    expect(dims.length).toBeGreaterThan(0);
  });
});
