import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { COLLECTORS, ENDPOINTS, buildJobs, collectorStates } from '../../src/collectors/index.js';
import type { TargetKind } from '../../src/collectors/index.js';
import type { AnyEndpoint } from '../../src/collectors/endpoint.js';
import { collectionOffloadPool } from '../../src/collectors/decoding.js';
import { parseConfig } from '../../src/config/load.js';
import { jobContext } from '../../src/jobs/job-context.js';
import type { PartOutcome } from '../../src/jobs/part.js';
import type { StepOutcome } from '../../src/collectors/plan.js';
import { linesText } from '../../src/metrics/encoded-lines.js';
import type { Labels } from '../../src/metrics/family.js';
import { tempFile } from './daemon.js';
import { parseExposition } from './exposition.js';
import { NEVER } from './schedules.js';
import { switchesOf } from './switches.js';

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
  /** The id of the endpoint it answers, as the collectors declare it (`agent/members`). */
  endpoint: string;
  /** The part of the run it feeds, where the endpoint has one per kind (`dr`, `performance`). */
  part?: string;
  /** Answers the run needs before it calls this endpoint (a DR status saying "secondary"): corpus files, or answers of their own. */
  given?: Array<string | Given>;
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

/** The JSON body an answer carries, as `body` or as JSON `text` (an unhealthy agent's 500); undefined for plain text. */
export function jsonBody(a: Pick<RealAnswer, 'body' | 'text'>): unknown {
  if (a.body !== undefined || a.text === undefined) return a.body;
  try {
    return JSON.parse(a.text) as unknown;
  } catch {
    return undefined;
  }
}

/** An answer given inline, for an endpoint the run calls before the one under test. */
export interface Given {
  endpoint: string;
  status?: number;
  body: unknown;
}

type Answer = Pick<RealAnswer, 'endpoint' | 'part' | 'given' | 'status' | 'contentType' | 'body' | 'text'>;
type Served = Pick<RealAnswer, 'status' | 'contentType' | 'body' | 'text'>;

/** The declaration of an endpoint, by its id; an answer for an endpoint no collector declares is an error. */
export function declared(id: string): { kind: TargetKind; endpoint: AnyEndpoint } {
  const found = ENDPOINTS.find((e) => e.endpoint.id === id);
  if (!found) throw new Error(`no collector declares the endpoint ${id}`);
  return found;
}

const ORGANIZATION = 'my-organization';

/** The declared path as a pattern: `{x}` stands for one path segment. */
export const pathPattern = (path: string): RegExp => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);

export { switchesOf };

/**
 * One target of the endpoint's collector that calls it, at `address`: its own switch on and every
 * other off (so the run calls no optional endpoint it does not need), the one replication kind the answer is of, a merkle check and a
 * token file where the collector needs them. Schedules never fire: the test runs the jobs itself.
 */
function configFor(a: Answer, address: string, token: string, limits: CorpusLimits): string {
  const { kind, endpoint } = declared(a.endpoint);
  const common = `name: t, address: "${address}", token_file: ${token}, schedule: "${NEVER}"${limits[kind] ? `, ${limits[kind]}` : ''}`;
  const switches = switchesOf(kind, (e) => e === endpoint);
  if (kind === 'secrets') {
    const replicationKind = a.part === 'performance' ? 'performance' : 'dr';
    const merkle =
      endpoint.id === 'secrets/merkle-check'
        ? `, merkle_check: { dr_operation_token_file: ${token}, schedule: "${NEVER}"${limits.secretsMerkle ? `, ${limits.secretsMerkle}` : ''} }`
        : '';
    const snapshots = endpoint.id.startsWith('secrets/raft-snapshot-')
      ? `, snapshots: { names: [${a.part ?? 'config1'}], list: ${endpoint.id === 'secrets/raft-snapshot-configs'}, schedule: "${NEVER}" }`
      : '';
    // The node poll's one node is the corpus server itself: what an answer names is never dialled.
    const nodes = `, nodes: { addresses: ["${nodeAddress(address)}"]${limits.secretsNodes ? `, ${limits.secretsNodes}` : ''} }`;
    return `secrets:\n  - { ${common}, replication_kinds: [${replicationKind}]${merkle}${snapshots}${nodes} }\n`;
  }
  if (kind === 'agents') return `agents:\n  - { ${common}, ${switches.join(', ')} }\n`;
  return `teams:\n  - { ${common}, organization: ${ORGANIZATION}, page_size: 20, max_pages: 10, ${switches.join(', ')} }\n`;
}

/** The node a corpus target's node poll polls: its address, as the part `node {node}` and the label `node` name it. */
const nodeAddress = (address: string): string => address.replace(/\/+$/, '');

/** `series` with the labels the part adds to each (target, kind, endpoint, organization) taken off its keys. */
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

export { jobContext } from '../../src/jobs/job-context.js';

/**
 * A loopback server that answers the requests under `/<id>/` with the answers registered for that
 * id, each at the path of the endpoint it answers (404 elsewhere), and a target per answer: each
 * answer is collected the way the daemon collects it. The collector's own jobs, built from a
 * config, run against the server (vigil's real client, status handling, decoding, schema, families
 * and rendering), and the part the answer feeds is what the test reads.
 */
/** Keys each target of a kind gets beyond the corpus's own (YAML flow, `max_members: 50`); `secretsNodes` and `secretsMerkle` inside a secrets target's `nodes` and `merkle_check`. */
export type CorpusLimits = Partial<Record<TargetKind | 'secretsNodes' | 'secretsMerkle', string>>;

export class CorpusServer {
  constructor(private readonly limits: CorpusLimits = {}) {}

  private readonly answers = new Map<string, Array<{ path: RegExp; answer: Served }>>();
  private server?: http.Server;
  private next = 0;
  private readonly offload = collectionOffloadPool(1);
  private readonly token = tempFile('token', 'corpus-token\n');

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const m = /^\/([^/]+)(\/[^?]*)/.exec(req.url ?? '');
      const a = this.answers.get(m?.[1] ?? '')?.find((x) => x.path.test(m?.[2] ?? ''))?.answer;
      if (!a) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":["not in this test"]}');
      const text = a.text ?? JSON.stringify(a.body);
      res.writeHead(a.status ?? 200, { 'content-type': a.contentType ?? 'application/json' }).end(text);
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
    await this.offload.close();
  }

  /** Collects `answer` as the daemon would collect its endpoint. */
  async scrape(answer: Answer): Promise<Scrape> {
    declared(answer.endpoint);
    const id = `a${this.next++}`;
    const given = (answer.given ?? []).map((g) => (typeof g === 'string' ? realAnswer(g) : g));
    this.answers.set(
      id,
      [answer, ...given].map((a) => ({ path: pathPattern(declared(a.endpoint).endpoint.path), answer: a })),
    );
    const port = (this.server?.address() as AddressInfo).port;
    const address = `http://127.0.0.1:${port}/${id}/`;
    const config = parseConfig(configFor(answer, address, this.token, this.limits), 'corpus');
    const ctx = jobContext(this.offload);
    try {
      const signal = AbortSignal.timeout(10_000);
      const outcomes = (await Promise.all(buildJobs(config, ctx, collectorStates()).map((j) => j.run(signal)))).flat();
      const outcome = partOf(answer, outcomes as StepOutcome[], nodeAddress(address));
      if (!outcome) throw new Error(`the run of ${answer.endpoint} has no part of it (parts: ${outcomes.map((o) => o.part).join(', ')})`);
      const text = [...outcome.group.values()].map(linesText).join('');
      const context = {
        target: 't',
        organization: ORGANIZATION,
        ...(outcome.item === undefined ? {} : { kind: outcome.item, node: outcome.item, address: outcome.item }),
        ...outcome.endpoint?.labels,
      };
      return { outcome, text, series: withoutContext(parseExposition(text), context) };
    } finally {
      this.answers.delete(id);
      await Promise.all(ctx.clients.map((c) => c.close()));
    }
  }
}

/**
 * The part an answer feeds: the part its `part` names (a replication kind, or a part the run derives
 * from it, as the node poll's `cluster_nodes`), else its endpoint's (at the corpus's one node, for a
 * step called per node), else, for an endpoint called from inside another's call (a team's show),
 * that one's.
 */
function partOf(answer: Answer, outcomes: readonly StepOutcome[], node: string): StepOutcome | undefined {
  if (answer.part !== undefined) return outcomes.find((o) => o.part === answer.part || (o.endpoint?.id === answer.endpoint && o.item === answer.part));
  const { kind } = declared(answer.endpoint);
  const step = COLLECTORS.find((c) => c.kind === kind)
    ?.plans.flatMap((p) => p.steps)
    .find((s) => s.kind === 'call' && s.endpoint.id === answer.endpoint);
  const id = step?.kind === 'call' && step.within ? step.within.step.endpoint.id : answer.endpoint;
  return outcomes.find((o) => o.endpoint?.id === id && (o.item === undefined || o.item === node));
}

/** What the part did, in the corpus' words. */
export const outcomeOf = (o: PartOutcome): string => (o.notApplicable ? 'not_applicable' : o.error ? `down:${o.error.reason}` : 'up');
