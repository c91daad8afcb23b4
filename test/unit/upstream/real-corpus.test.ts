import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriesOf } from '../../helpers/exposition.js';
import { CorpusServer, outcomeOf, realAnswers, type Scrape } from '../../helpers/real-corpus.js';
import { ENDPOINTS } from '../../../src/collectors/index.js';

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
  it('holds at least 25 answers', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(25);
  });

  it.each(ENDPOINTS.map(({ endpoint }) => [endpoint.id]))('holds a real answer of %s, an endpoint a collector declares', (id) => {
    expect(corpus.filter((a) => a.endpoint === id && a.outcome === 'up').map((a) => a.file)).not.toEqual([]);
  });

  it('answers only endpoints a collector declares', () => {
    const ids = new Set(ENDPOINTS.map(({ endpoint }) => endpoint.id));
    expect(corpus.filter((a) => !ids.has(a.endpoint)).map((a) => `${a.file}: ${a.endpoint}`)).toEqual([]);
  });
});
