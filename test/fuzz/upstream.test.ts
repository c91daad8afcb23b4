import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/collectors/index.js';
import { REASONS, UpstreamError } from '../../src/upstream/errors.js';
import { parseBody } from '../../src/upstream/parse.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { parseExposition } from '../helpers/exposition.js';
import { fixture } from '../helpers/fixtures.js';
import { jsonBody, pathPattern, realAnswer, realAnswers, switchesOf } from '../helpers/real-corpus.js';
import { around, NETWORK_SETTINGS, SETTINGS } from './arbitraries.js';

/**
 * Every declared endpoint's decoder, alone and in the whole collection path, under random and
 * mutated answers: the cases loop over `ENDPOINTS`, so an endpoint a collector declares is fuzzed
 * the day it is declared, seeded by the bodies of its real answers.
 */
const CORPUS = realAnswers();

/** Hand-written bodies kept for shapes no real answer has, by endpoint id. */
const EXTRA_SEEDS: Record<string, string[]> = {
  // Numbers and flags sent as strings; a null list of secondaries.
  'secrets/replication-status': ['secrets/dr-primary.json', 'secrets/dr-secondary.json', 'secrets/older-primary-no-state.json'],
  // Corrupted trees with their index tuples and subpages.
  'secrets/merkle-check': ['secrets/merkle-check.json'],
  // A listing with a next page, by its meta and by its links only; list entries with organization-access flags.
  'teams/list': ['teams/page-1-of-3.json', 'teams/links-only-page-1.json'],
};

/** The bodies an endpoint's cases start from: those of its real answers that were read as data, then the extra ones. */
const seeds = (id: string): unknown[] => [
  ...CORPUS.filter((a) => a.endpoint === id && a.outcome === 'up').flatMap((a) => jsonBody(a) ?? []),
  ...(EXTRA_SEEDS[id] ?? []).map(fixture),
];

const SEEDED = ENDPOINTS.map(({ endpoint }) => ({ endpoint, seeds: seeds(endpoint.id) }));

describe.each(SEEDED.map((s) => [s.endpoint.id, s] as const))('%s decoder', (_id, { endpoint, seeds }) => {
  it('has bodies to start from', () => {
    expect(seeds.length).toBeGreaterThan(0);
  });

  it('gives a value or a schema failure naming the field, nothing else', () => {
    fc.assert(
      fc.property(around(...seeds), (body) => {
        try {
          parseBody(endpoint.schema, body, endpoint.id);
        } catch (e) {
          expect(e).toBeInstanceOf(UpstreamError);
          expect((e as UpstreamError).reason).toBe('schema');
        }
      }),
      SETTINGS,
    );
  });
});

/** Each endpoint's route: its method and declared path (`{x}` one segment). */
const ROUTES = ENDPOINTS.map(({ endpoint }) => ({ id: endpoint.id, method: endpoint.method, path: pathPattern(endpoint.path) }));

/**
 * Answers an endpoint needs before it is called at all (a DR status saying "secondary" before the
 * DR operation token attempt), as the corpus gives them: a case serves one of them unchanged.
 */
const GIVENS = [
  ...new Map(
    CORPUS.flatMap((a) => a.given ?? [])
      .map((g) => (typeof g === 'string' ? realAnswer(g) : g))
      .map((g) => [JSON.stringify([g.endpoint, g.body]), { endpoint: g.endpoint, status: g.status ?? 200, text: JSON.stringify(g.body) }] as const),
  ).values(),
];

interface Case {
  /** The body each route answers, in the order of `ROUTES`. */
  texts: string[];
  /** The index of the given answer this case serves instead of its route's body. */
  given: number | null;
}

/** What the fake upstream answers now, and how often each endpoint's route was answered. */
let current: Case | undefined;
const hits = new Map<string, number>();
let upstream: http.Server;
let vigil: TestDaemon;

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://upstream').pathname;
  const i = ROUTES.findIndex((r) => r.method === req.method && r.path.test(path));
  if (i < 0 || !current) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":["no route"]}');
  const id = ROUTES[i]?.id as string;
  // Endpoints of one method and path (the token's lookup-self, also asked as the audited request)
  // look alike on the wire: a request to it counts for each of them.
  for (const r of ROUTES) if (r.method === req.method && r.path.source === ROUTES[i]!.path.source) hits.set(r.id, (hits.get(r.id) ?? 0) + 1);
  const given = current.given === null ? undefined : GIVENS[current.given];
  const [status, text] = given?.endpoint === id ? [given.status, given.text] : [200, current.texts[i] ?? 'null'];
  res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

/** One target of each collector with every endpoint switched on: every switch, the merkle check, both replication kinds, the snapshots listed. */
function everyEndpointConfig(url: string, token: string): string {
  const common = `name: x, address: ${url}, token_file: ${token}, schedule: "${NEVER}"`;
  const target = (kind: 'secrets' | 'agents' | 'teams', ...own: string[]) =>
    `${kind}:\n  - { ${[common, ...own, ...switchesOf(kind, () => true)].join(', ')} }\n`;
  return (
    target(
      'secrets',
      'replication_kinds: [dr, performance]',
      `merkle_check: { dr_operation_token_file: ${token}, schedule: "${NEVER}" }`,
      `snapshots: { names: [daily], list: true, schedule: "${NEVER}" }`,
    ) +
    target('agents') +
    target('teams', 'organization: o', 'max_pages: 3')
  );
}

beforeAll(async () => {
  upstream = http.createServer(answer);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  vigil = await startTestDaemon(everyEndpointConfig(url, tempFile('token', 'fuzz-upstream-token\n')));
});
afterAll(async () => {
  await vigil?.close();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

describe('collections of mutated answers', () => {
  it('mark parts down with a known reason, keep /metrics whole, never crash, and call every declared endpoint', async () => {
    const texts = fc.tuple(...SEEDED.map((s) => around(...s.seeds).map((d) => JSON.stringify(d) ?? '')));
    const cases: fc.Arbitrary<Case> = fc.record({ texts, given: fc.oneof(fc.constant(null), fc.nat(GIVENS.length - 1)) });
    // The first cases serve each given answer with every route's first seed, so every endpoint is called whatever the seed.
    const firstSeeds = SEEDED.map((s) => JSON.stringify(s.seeds[0]));
    const examples: Array<[Case]> = [null, ...GIVENS.keys()].map((given) => [{ texts: firstSeeds, given }]);
    hits.clear();
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        current = c;
        await vigil.collect();
        const text = await vigil.scrape();
        for (const [k, v] of parseExposition(text)) {
          if (!k.startsWith('vigil_collector_failures_total')) continue;
          const reason = /reason="([^"]*)"/.exec(k)?.[1];
          expect(REASONS).toContain(reason);
          if (reason === 'internal') expect(v).toBe(0);
        }
        expect(text).not.toContain('fuzz-upstream-token');
      }),
      { ...NETWORK_SETTINGS, examples },
    );
    expect(Object.fromEntries(ROUTES.map((r) => [r.id, (hits.get(r.id) ?? 0) > 0]))).toEqual(Object.fromEntries(ROUTES.map((r) => [r.id, true])));
  }, 180_000);
});
