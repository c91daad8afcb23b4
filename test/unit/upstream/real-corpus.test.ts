import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriesOf } from '../../helpers/exposition.js';
import { CorpusServer, outcomeOf, realAnswers, type Scrape } from '../../helpers/real-corpus.js';

/**
 * Every answer of the corpus of real answers (test/fixtures/real/) read through vigil's HTTP client,
 * parsing and rendering: each series the file expects has the value it expects, each absent family
 * is absent, and the part is up, down or not applicable as the file says.
 */
const corpus = realAnswers();
const server = new CorpusServer();
const scrapes = new Map<string, Scrape>();

beforeAll(async () => {
  await server.start();
  for (const a of corpus) scrapes.set(a.file, await server.scrape(a));
}, 60_000);
afterAll(() => server.stop());

describe.each(corpus)('real answer $file', (a) => {
  const s = () => scrapes.get(a.file) as Scrape;

  it('says where it came from', () => {
    expect(a.source).toMatch(/^https:\/\/[\w.-]+\/\S+$|^[\w.-]+\/[\w.-]+:[\w./-]+@[0-9a-f]{40}$/);
    expect(a.version).not.toBe('');
  });

  it(`is ${a.outcome}`, () => {
    expect(outcomeOf(s().outcome), s().outcome.error?.message).toBe(a.outcome);
  });

  it.each(Object.entries(a.expect))('exports %s = %d', (key, value) => {
    const got = s().series.get(key);
    // Durations and fractions go through a division: equal to the last representable digit.
    if (Number.isInteger(value)) expect(got).toBe(value);
    else expect(Math.abs((got ?? NaN) - value)).toBeLessThanOrEqual(Math.abs(value) * 1e-12);
  });

  it.each(a.absent.map((n) => [n]))('exports no %s', (name) => {
    expect(name.includes('{') ? s().series.has(name) : seriesOf(s().series, name).size).toBe(name.includes('{') ? false : 0);
  });
});

describe('the corpus', () => {
  it('holds at least 25 answers, of every endpoint vigil reads', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(25);
    const endpoints = new Set(corpus.map((a) => a.endpoint));
    for (const e of [
      'dr/status',
      'performance/status',
      'merkle-check',
      'agent/health',
      'agent/members',
      'agent/servers',
      'agent/self',
      'agent/host',
      'teams/list',
      'teams/show',
    ]) {
      expect(endpoints.has(e), e).toBe(true);
    }
  });
});
