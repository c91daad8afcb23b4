import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alarming, FEEDS, fedBy, isEssential, MEANINGFUL, OBSERVED_BY_VIGIL } from '../../helpers/corpus-feeds.js';
import { CorpusServer, outcomeOf, realAnswers, type RealAnswer, type Scrape } from '../../helpers/real-corpus.js';
import { mergedExposition } from '../../helpers/merge-exposition.js';
import { promtoolCheckMetrics } from '../../helpers/tools.js';
import type { RenderedGroup } from '../../../src/metrics/render.js';
import { ENDPOINTS } from '../../../src/collectors/index.js';

/**
 * Every key of every JSON answer of the corpus, in turn removed, set to null and set to a value of
 * another type: the part stays up (or, for an essential key, fails with reason `schema`), only the
 * series that key feeds change (test/helpers/corpus-feeds.ts), no change turns a quiet series into
 * one that pages, and promtool accepts every scrape.
 */
type Path = Array<string | number>;
type Mutation = 'removed' | 'null' | 'wrong type';

function paths(v: unknown, at: Path = []): Path[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => [[...at, i], ...paths(x, [...at, i])]);
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [[...at, k], ...paths(x, [...at, k])]);
  return [];
}

/** A value of another JSON type than `v` that no tolerant reader could take for it (no numeric strings, no "true"). */
const otherType = (v: unknown): fc.Arbitrary<unknown> => {
  const options: fc.Arbitrary<unknown>[] = [];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) options.push(fc.constant({ unexpected: true }));
  if (!Array.isArray(v)) options.push(fc.array(fc.integer(), { maxLength: 2 }));
  if (typeof v !== 'boolean') options.push(fc.boolean());
  if (typeof v !== 'number' && !(typeof v === 'string' && /^-?\d/.test(v))) options.push(fc.integer({ min: -5, max: 5 }));
  if (typeof v !== 'string') options.push(fc.constantFrom('unexpected', 'n/a'));
  return fc.oneof(...options);
};

function mutate(body: unknown, path: Path, how: Mutation, seed: number): unknown {
  const copy = structuredClone(body);
  let parent = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (how === 'removed') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (how === 'null') parent[last] = null;
  else parent[last] = fc.sample(otherType(parent[last]), { numRuns: 1, seed })[0];
  return copy;
}

const familyOf = (key: string) => key.replace(/\{.*$/, '');
const UP = /_up$/;

/** The series of families `path` does not feed, to compare before and after. */
const untouched = (s: Map<string, number>, fed: Set<string>) =>
  new Map([...s].filter(([k]) => !fed.has(familyOf(k)) && !UP.test(familyOf(k)) && !OBSERVED_BY_VIGIL.has(familyOf(k))));
const alarms = (s: Map<string, number>) => [...s].filter(([k, v]) => alarming(k, v)).length;

const answers = realAnswers().filter((a) => a.outcome === 'up' && a.body !== undefined && (a.status ?? 200) === 200);
const server = new CorpusServer();
const groups: RenderedGroup[] = [];

beforeAll(() => server.start());
afterAll(() => server.stop());

describe.each(answers)('every key of $file', (a: RealAnswer) => {
  const feeds = FEEDS[a.endpoint];
  if (!feeds) throw new Error(`no feeds table for ${a.endpoint}`);

  it('costs at most the series it feeds, and never pages', async () => {
    const before = await server.scrape(a);
    groups.push(before.outcome.group);
    const problems: string[] = [];
    for (const [i, path] of paths(a.body).entries()) {
      const dotted = path.join('.');
      const pattern = dotted.replace(/\.\d+(?=\.|$)/g, '.*').replace(/^\d+(?=\.|$)/, '*');
      const fed = fedBy(feeds, pattern);
      for (const how of ['removed', 'null', 'wrong type'] as const) {
        const after: Scrape = await server.scrape({ ...a, body: mutate(a.body, path, how, i) });
        const where = `${dotted} ${how}`;
        const outcome = outcomeOf(after.outcome);
        if (outcome !== 'up') {
          if (!(isEssential(feeds, pattern) && outcome === 'down:schema')) problems.push(`${where}: part ${outcome} (${after.outcome.error?.message ?? ''})`);
          continue;
        }
        groups.push(after.outcome.group);
        const kept = untouched(after.series, fed);
        const was = untouched(before.series, fed);
        for (const [k, v] of was) if (kept.get(k) !== v) problems.push(`${where}: ${k} ${v} -> ${kept.get(k)}`);
        for (const k of kept.keys()) if (!was.has(k)) problems.push(`${where}: new ${k}`);
        // Removing an element of a list is another valid answer (one secondary fewer), not a misreading.
        const elementRemoved = how === 'removed' && typeof path[path.length - 1] === 'number';
        if (!elementRemoved && !MEANINGFUL.has(`${pattern} ${how}`) && alarms(after.series) > alarms(before.series))
          problems.push(
            `${where}: pages (${[...after.series]
              .filter(([k, v]) => alarming(k, v))
              .map(([k]) => k)
              .join(', ')})`,
          );
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});

describe('the feeds tables', () => {
  it.each(ENDPOINTS.map(({ endpoint }) => [endpoint.id]))('cover %s, an endpoint a collector declares, with real answers to mutate', (id) => {
    expect(FEEDS[id]).toBeDefined();
    expect(answers.filter((a) => a.endpoint === id).length).toBeGreaterThan(0);
  });
});

describe('the scrapes of every mutation', () => {
  it('pass promtool check metrics', () => {
    expect(groups.length).toBeGreaterThan(answers.length);
    const r = promtoolCheckMetrics(mergedExposition(groups));
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });
});
