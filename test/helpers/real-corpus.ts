import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { agentEndpointUp } from '../../src/collectors/agent/endpoint-up.js';
import { agentUp, healthFamilies } from '../../src/collectors/agent/health.js';
import { hostFamilies } from '../../src/collectors/agent/host.js';
import { memberLimiter, memberPollFamilies } from '../../src/collectors/agent/members.js';
import { selfFamilies } from '../../src/collectors/agent/self.js';
import { serversFamilies } from '../../src/collectors/agent/servers.js';
import { collectPart, type PartOutcome, type PartSpec } from '../../src/jobs/part.js';
import { merkleFamilies, merkleUp } from '../../src/collectors/secrets/merkle.js';
import { replicationFamilies, replicationUp } from '../../src/collectors/secrets/replication.js';
import { teamsFamilies, teamsUp, type TeamsListing } from '../../src/collectors/teams/listing.js';
import type { Labels } from '../../src/metrics/family.js';
import { fetchHealth, fetchHost, fetchMembers, fetchSelf, fetchServers, membersNotApplicable, serversNotApplicable } from '../../src/upstream/agent/api.js';
import { UpstreamClient } from '../../src/upstream/client.js';
import { fetchReplicationStatus, runMerkleCheck } from '../../src/upstream/secrets/api.js';
import { withSecretsReasons } from '../../src/upstream/secrets/availability.js';
import { listTeams, showTeam } from '../../src/upstream/teams/api.js';
import { parseExposition } from './exposition.js';

/**
 * The corpus of real answers under test/fixtures/real/<service>/: each file says where the body came
 * from (`source`, `version`, and `derived` when it is not copied as published), the endpoint it
 * answers, the status and body, and what vigil must make of it: the series (`expect`, written by
 * hand from the body, keyed `name{own labels}`), the families it must not export (`absent`), and
 * whether the part is up, down for a reason, or not applicable.
 */
export interface RealAnswer {
  file: string;
  source: string;
  version: string;
  derived?: string;
  endpoint: string;
  status?: number;
  contentType?: string;
  /** A JSON body; `text` instead for a body that is not JSON (plain-text errors). */
  body?: unknown;
  text?: string;
  expect: Record<string, number>;
  absent: string[];
  outcome: 'up' | 'not_applicable' | `down:${string}`;
}

const ROOT = new URL('../fixtures/real/', import.meta.url);

export function realAnswers(): RealAnswer[] {
  return readdirSync(ROOT, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(readFileSync(new URL(file, ROOT), 'utf8')) as Omit<RealAnswer, 'file'>) }));
}

export const realAnswer = (file: string): RealAnswer => {
  const a = realAnswers().find((x) => x.file === file);
  if (!a) throw new Error(`no corpus answer ${file}`);
  return a;
};

const signal = () => AbortSignal.timeout(10_000);

/** How vigil collects one endpoint: the same fetch, families, `_up` and not-applicable rule as the daemon. */
type Collect = (c: UpstreamClient) => Omit<PartSpec<unknown>, 'part'>;
const part = <T>(spec: (c: UpstreamClient) => Omit<PartSpec<T>, 'part'>): Collect => spec as unknown as Collect;

const status = (kind: 'dr' | 'performance') =>
  part((c) => ({
    context: { target: 't', kind },
    fetch: () => withSecretsReasons(fetchReplicationStatus(c, kind, {}, signal())),
    families: replicationFamilies,
    up: replicationUp,
  }));
const agent = <T>(
  endpoint: string,
  fetch: (c: UpstreamClient) => Promise<T>,
  families: PartSpec<T>['families'],
  notApplicable?: PartSpec<T>['notApplicable'],
) =>
  part<T>((c) => ({ context: { target: 't', endpoint }, fetch: () => fetch(c), families, up: agentEndpointUp, ...(notApplicable ? { notApplicable } : {}) }));
const listing = (teams: TeamsListing['teams'], pages: number): TeamsListing => ({ teams, pages, requests: pages, maxTeams: 1000 });
const teams = (fetch: (c: UpstreamClient) => Promise<TeamsListing>) =>
  part<TeamsListing>((c) => ({ context: { target: 't', organization: 'my-organization' }, fetch: () => fetch(c), families: teamsFamilies, up: teamsUp }));

export const COLLECTORS: Record<string, Collect> = {
  'dr/status': status('dr'),
  'performance/status': status('performance'),
  'merkle-check': part((c) => ({ context: { target: 't' }, fetch: () => runMerkleCheck(c, 'op-token', {}, signal()), families: merkleFamilies, up: merkleUp })),
  'agent/health': part((c) => ({ context: { target: 't' }, fetch: () => fetchHealth(c, {}, signal()), families: healthFamilies, up: agentUp })),
  'agent/members': agent('members', async (c) => memberLimiter(1000)(await fetchMembers(c, {}, signal())), memberPollFamilies, membersNotApplicable),
  'agent/servers': agent('servers', (c) => fetchServers(c, {}, signal()), serversFamilies, serversNotApplicable),
  'agent/self': agent('self', (c) => fetchSelf(c, {}, signal()), selfFamilies),
  'agent/host': agent('host', (c) => fetchHost(c, {}, signal()), hostFamilies),
  'teams/list': teams(async (c) => {
    const l = await listTeams(c, { organization: 'my-organization', token: 'tok', pageSize: 20, maxPages: 10, signal: signal() });
    return listing(l.teams, l.pages);
  }),
  'teams/show': teams(async (c) => listing([await showTeam(c, 'team-6p5jTwJQXwqZBncC', 'tok', signal())], 1)),
};

/** `series` with the labels the part adds to each (target, kind, endpoint...) taken off its keys. */
function withoutContext(series: Map<string, number>, context: Labels): Map<string, number> {
  const ctx = new Set(Object.entries(context).map(([k, v]) => `${k}="${v}"`));
  return new Map(
    [...series].map(([key, v]) => {
      const m = /^([^{]+)\{(.*)\}$/.exec(key);
      if (!m) return [key, v];
      const own = [...(m[2] as string).matchAll(/[a-zA-Z_]\w*="(?:[^"\\]|\\.)*"/g)].map(([l]) => l).filter((l) => !ctx.has(l));
      return [own.length ? `${m[1]}{${own.join(',')}}` : (m[1] as string), v];
    }),
  );
}

export interface Scrape {
  outcome: PartOutcome;
  /** The part's exposition text, as /metrics would carry it. */
  text: string;
  /** Series keyed `name{own labels}` (sorted), without the labels of the part. */
  series: Map<string, number>;
}

/**
 * A loopback server that answers every request under `/<id>/` with the answer registered for that
 * id, and a client per answer: each answer goes through vigil's real HTTP client, status handling,
 * parsing and rendering.
 */
export class CorpusServer {
  private readonly answers = new Map<string, Pick<RealAnswer, 'status' | 'contentType' | 'body' | 'text'>>();
  private server?: http.Server;
  private next = 0;

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const id = /^\/([^/]+)\//.exec(req.url ?? '')?.[1] ?? '';
      const a = this.answers.get(id);
      if (!a) return void res.writeHead(599).end();
      const text = a.text ?? JSON.stringify(a.body);
      res.writeHead(a.status ?? 200, { 'content-type': a.contentType ?? 'application/json' }).end(text);
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  /** Collects `answer` as the daemon would collect its endpoint. */
  async scrape(answer: Pick<RealAnswer, 'endpoint' | 'status' | 'contentType' | 'body' | 'text'>): Promise<Scrape> {
    const collect = COLLECTORS[answer.endpoint];
    if (!collect) throw new Error(`no collector for ${answer.endpoint}`);
    const id = `a${this.next++}`;
    this.answers.set(id, answer);
    const port = (this.server?.address() as AddressInfo).port;
    const client = new UpstreamClient({ address: `http://127.0.0.1:${port}/${id}/`, timeoutMs: 10_000, maxResponseBytes: 1 << 20 });
    try {
      const spec = collect(client);
      const outcome = await collectPart({ part: answer.endpoint, ...spec });
      const text = [...outcome.group.values()].join('');
      return { outcome, text, series: withoutContext(parseExposition(text), spec.context) };
    } finally {
      this.answers.delete(id);
      await client.close();
    }
  }
}

/** What the part did, in the corpus' words. */
export const outcomeOf = (o: PartOutcome): string => (o.notApplicable ? 'not_applicable' : o.error ? `down:${o.error.reason}` : 'up');
