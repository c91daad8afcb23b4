import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { agentHealthResponse } from '../../src/upstream/agent/health.js';
import { agentHostResponse } from '../../src/upstream/agent/host.js';
import { agentMembersResponse } from '../../src/upstream/agent/members.js';
import { agentSelfResponse } from '../../src/upstream/agent/self.js';
import { agentServersResponse } from '../../src/upstream/agent/servers.js';
import { REASONS, UpstreamError } from '../../src/upstream/errors.js';
import { parseBody } from '../../src/upstream/parse.js';
import { merkleCheckResponse } from '../../src/upstream/secrets/merkle-check.js';
import { replicationStatusResponse } from '../../src/upstream/secrets/replication-status.js';
import { listTeamsResponse } from '../../src/upstream/teams/list-teams.js';
import { showTeamResponse } from '../../src/upstream/teams/show-team.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { parseExposition } from '../helpers/exposition.js';
import { fixture } from '../helpers/fixtures.js';
import { around, NETWORK_SETTINGS, SETTINGS } from './arbitraries.js';

/** Every upstream decoder, alone and in the whole collection path, under random and mutated answers. */
const DECODERS: Array<[string, z.ZodType, string[]]> = [
  [
    'secrets replication status',
    replicationStatusResponse,
    ['secrets/dr-primary.json', 'secrets/dr-secondary.json', 'secrets/disabled.json', 'secrets/older-primary-no-state.json'],
  ],
  ['secrets merkle check', merkleCheckResponse, ['secrets/merkle-check.json']],
  ['agent health', agentHealthResponse, ['agent/health-server.json', 'agent/health-client-only.json', 'agent/health-unhealthy-both.json']],
  ['agent members', agentMembersResponse, ['agent/members-server.json']],
  ['agent servers', agentServersResponse, ['agent/servers-client.json']],
  ['agent self', agentSelfResponse, ['agent/self-server-leader.json', 'agent/self-server-follower.json', 'agent/self-client.json']],
  ['agent host', agentHostResponse, ['agent/host.json']],
  ['teams listing', listTeamsResponse, ['teams/page-1-of-3.json', 'teams/links-only-page-1.json', 'teams/older-release.json']],
  ['teams show', showTeamResponse, ['teams/show-team.json']],
];

describe.each(DECODERS)('%s decoder', (_name, schema, files) => {
  it('gives a value or a schema failure naming the field, nothing else', () => {
    fc.assert(
      fc.property(around(...files.map(fixture)), (body) => {
        try {
          parseBody(schema, body, 'fuzz');
        } catch (e) {
          expect(e).toBeInstanceOf(UpstreamError);
          expect((e as UpstreamError).reason).toBe('schema');
        }
      }),
      SETTINGS,
    );
  });
});

/** Answers per path, set by each case: the mutated bodies every endpoint returns. */
const answers = new Map<string, string>();
const ROUTES: Array<[RegExp, string[]]> = [
  [/^\/v1\/sys\/replication\/(dr|performance)\/status/, ['secrets/dr-primary.json', 'secrets/dr-secondary.json']],
  [/^\/v1\/sys\/replication\/dr\/secondary\/merkle-check/, ['secrets/merkle-check.json']],
  [/^\/v1\/agent\/health/, ['agent/health-server.json']],
  [/^\/v1\/agent\/members/, ['agent/members-server.json']],
  [/^\/v1\/agent\/servers/, ['agent/servers-client.json']],
  [/^\/v1\/agent\/self/, ['agent/self-server-leader.json']],
  [/^\/v1\/agent\/host/, ['agent/host.json']],
  [/^\/api\/v2\/organizations\/.*\/teams/, ['teams/page-1-of-3.json']],
  [/^\/api\/v2\/teams\//, ['teams/show-team.json']],
];
let upstream: http.Server;
let vigil: TestDaemon;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const i = ROUTES.findIndex(([re]) => re.test(req.url ?? ''));
    res.writeHead(i < 0 ? 404 : 200, { 'content-type': 'application/json' }).end(i < 0 ? '{"errors":["no route"]}' : (answers.get(String(i)) ?? 'null'));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const token = tempFile('token', 'fuzz-upstream-token\n');
  vigil = await startTestDaemon(
    `secrets:\n  - { name: s, address: ${url}, token_file: ${token}, schedule: "${NEVER}", merkle_check: { dr_operation_token_file: ${token}, schedule: "${NEVER}" } }\n` +
      `agents:\n  - { name: a, address: ${url}, token_file: ${token}, schedule: "${NEVER}", host: true }\n` +
      `teams:\n  - { name: t, address: ${url}, token_file: ${token}, organization: o, schedule: "${NEVER}", max_pages: 3, complete_access: true }\n`,
  );
});
afterAll(async () => {
  await vigil?.close();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

describe('collections of mutated answers', () => {
  it('mark parts down with a known reason, keep /metrics whole, and never crash', async () => {
    const bodies = fc.tuple(...ROUTES.map(([, files]) => around(...files.map(fixture)).map((d) => JSON.stringify(d) ?? '')));
    await fc.assert(
      fc.asyncProperty(bodies, async (texts) => {
        texts.forEach((t, i) => answers.set(String(i), t));
        await vigil.collect();
        const text = await vigil.scrape();
        const m = parseExposition(text);
        for (const [k, v] of m) {
          if (!k.startsWith('vigil_collector_failures_total')) continue;
          const reason = /reason="([^"]*)"/.exec(k)?.[1];
          expect(REASONS).toContain(reason);
          if (reason === 'internal') expect(v).toBe(0);
        }
        expect(text).not.toContain('fuzz-upstream-token');
      }),
      NETWORK_SETTINGS,
    );
  }, 180_000);
});
