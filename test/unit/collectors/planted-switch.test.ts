import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineCollector, type Collector } from '../../../src/collectors/collector.js';
import { collectionOffloadPool } from '../../../src/collectors/decoding.js';
import type { AnyEndpoint } from '../../../src/collectors/endpoint.js';
import { COLLECTORS } from '../../../src/collectors/index.js';
import type { AnyStep, Plan } from '../../../src/collectors/plan.js';
import { jobContext } from '../../../src/jobs/job-context.js';
import { renderEndpointDeclarationsTable } from '../../../scripts/architecture-tables.js';
import { tempFile } from '../../helpers/daemon.js';
import { pathPattern } from '../../helpers/real-corpus.js';

/**
 * A switch planted on an endpoint of each collector, as a contributor would declare one: the config
 * takes its key (and refuses what is not a boolean), the job makes no call to the endpoint while it
 * is off and makes it while on, and the docs list the key. Nothing but the declaration is changed:
 * the config, the job and the docs follow from it.
 */
const KEY = 'planted_switch';

/**
 * The plans with the step that calls `from` calling `to`, and the steps that come after it or within
 * it pointing at the new step; every other step is kept as it is (a derived step finds the earlier
 * steps it reads by their identity).
 */
function withEndpoint(plans: readonly Plan[], from: AnyEndpoint, to: AnyEndpoint): Plan[] {
  const moved = new Map<AnyStep, AnyStep>();
  const map = (s: AnyStep): AnyStep => {
    const done = moved.get(s);
    if (done) return done;
    const after = s.after?.map(map);
    const within = s.kind === 'call' && s.within ? { ...s.within, step: map(s.within.step) as never } : undefined;
    const changed = (s.kind === 'call' && (s.endpoint === from || (within && within.step !== s.within?.step))) || after?.some((a, i) => a !== s.after?.[i]);
    const next: AnyStep = !changed
      ? s
      : s.kind === 'call'
        ? { ...s, ...(after ? { after } : {}), ...(within ? { within } : {}), endpoint: s.endpoint === from ? to : s.endpoint }
        : { ...s, ...(after ? { after } : {}) };
    moved.set(s, next);
    return next;
  };
  return plans.map((p) => ({ ...p, steps: p.steps.map(map) }));
}

/** The first endpoint of a collector that has no switch of its own, called once a run (not from inside another call). */
/**
 * An endpoint without a switch, called once a run of a job the target gets, whose path no other
 * endpoint asks (whether it was asked is told by its path): one no other step waits for where there
 * is one (a derived step reads the original step's outcome, which a planted copy does not make), else the last.
 */
const unswitched = (c: Collector, target: unknown): AnyEndpoint => {
  const callsOf = (plans: readonly Plan[]) => plans.flatMap((p) => p.steps).flatMap((s) => (s.kind === 'call' ? [s] : []));
  const alone = (e: AnyEndpoint) => callsOf(c.plans).filter((s) => s.endpoint.path === e.path).length === 1;
  const awaited = new Set(c.plans.flatMap((p) => p.steps.flatMap((s) => s.after ?? [])));
  const candidates = callsOf(c.plans.filter((p) => !p.on || p.on.test(target as never))).filter(
    (s) => !s.endpoint.switch && !s.within && !s.each && !s.if && alone(s.endpoint),
  );
  const step = candidates.find((s) => !awaited.has(s)) ?? candidates.at(-1);
  if (step?.kind !== 'call') throw new Error(`collector ${c.kind} has no endpoint without a switch`);
  return step.endpoint;
};

const requested: string[] = [];
const server = http.createServer((req, res) => {
  requested.push(new URL(req.url ?? '/', 'http://x').pathname);
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":["not here"]}');
});
let address = '';
const offload = collectionOffloadPool(1);
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await offload.close();
});

const token = tempFile('planted-token', 'tok\n');
const targetOf = (kind: string, extra: Record<string, unknown>) => ({
  name: 't',
  address,
  timeout: '2s',
  token_file: token,
  ...(kind === 'teams' ? { organization: 'acme' } : {}),
  ...extra,
});

describe.each((COLLECTORS as readonly Collector[]).map((c) => [c.kind, c] as const))('a switch planted on an endpoint of %s', (kind, c) => {
  const endpoint = unswitched(c, c.target.parse({ ...targetOf(kind, {}), address: 'http://127.0.0.1:1' }));
  const planted = { ...endpoint, switch: { key: KEY, default: true, help: 'planted: what turning it off saves' } } as AnyEndpoint;
  const variant = defineCollector({ ...c.spec, plans: withEndpoint(c.spec.plans as readonly Plan[], endpoint, planted) } as never) as Collector;

  it('is a config key of the target: a boolean, on by default, and no key at all without the declaration', () => {
    expect(variant.target.parse(targetOf(kind, {}))).toMatchObject({ [KEY]: true });
    expect(variant.target.parse(targetOf(kind, { [KEY]: false }))).toMatchObject({ [KEY]: false });
    expect(variant.target.safeParse(targetOf(kind, { [KEY]: 'no' })).success).toBe(false);
    expect(c.target.safeParse(targetOf(kind, { [KEY]: false })).success).toBe(false);
  });

  it.each([true, false])('makes the job call the endpoint only while on (%s)', async (on) => {
    const ctx = jobContext(offload);
    requested.length = 0;
    try {
      const jobs = variant.jobs([variant.target.parse(targetOf(kind, { [KEY]: on }))], ctx, variant.state());
      await Promise.all(jobs.map((j) => j.run(AbortSignal.timeout(10_000))));
    } finally {
      await Promise.all(ctx.clients.map((client) => client.close()));
    }
    const asked = requested.some((p) => pathPattern(endpoint.path).test(p));
    expect(asked, `${endpoint.id} at ${endpoint.path}; asked ${requested.join(', ')}`).toBe(on);
  });

  it('is listed in the docs with its default', () => {
    expect(renderEndpointDeclarationsTable([variant])).toContain(`| \`${KEY}\` (default true): planted: what turning it off saves |`);
  });
});
