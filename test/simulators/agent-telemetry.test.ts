import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { admin } from '../helpers/agent-sim.js';
import { parseExposition, series } from '../helpers/exposition.js';
import { promtoolCheckMetrics } from '../helpers/tools.js';

/**
 * Each agent's own `/v1/metrics?format=prometheus`: no token needed even with ACLs on, the server's
 * names with its `host` label, the blocked evaluations that follow the queue fault, the licence's
 * expiry as the licence endpoint answers it, and the plan queue fault.
 */
let sim: AgentSimulator;

async function scrapeRaw(agent: string, query = '?format=prometheus') {
  const res = await fetch(`${sim.agent(agent).url}/v1/metrics${query}`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}
async function scrape(agent: string): Promise<Map<string, number>> {
  const r = await scrapeRaw(agent);
  expect(r.status).toBe(200);
  return parseExposition(r.text);
}
const host = (agent: string) => ({ host: agent });
async function blockedByApi(): Promise<number> {
  const res = await fetch(`${sim.agent('server-1').url}/v1/evaluations?namespace=*&filter=${encodeURIComponent('Status == "blocked"')}`, {
    headers: { 'X-Scheduler-Token': sim.readToken },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as unknown[]).length;
}

beforeAll(async () => {
  sim = await startAgentSimulator({
    agents: [
      { name: 'server-1', role: 'server', enterprise: true },
      { name: 'server-2', role: 'server', enterprise: true },
      { name: 'client-1', role: 'client' },
      { name: 'ce', role: 'both', region: 'other' },
    ],
    acl: { enabled: true },
  });
});
afterAll(() => sim.close());
beforeEach(async () => {
  await admin(sim, 'server-1', 'jobs', undefined, 'DELETE');
  await admin(sim, 'server-1', 'telemetry', undefined, 'DELETE');
  await admin(sim, 'server-1', 'license', undefined, 'DELETE');
});

describe('GET /v1/metrics', () => {
  it('answers Prometheus text without a token, that promtool parses without error', async () => {
    const r = await scrapeRaw('server-1');
    expect([r.status, r.type]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
    const check = promtoolCheckMetrics(r.text);
    expect(check.output.split('\n').filter((l) => l !== '' && !/should have "_total" suffix/.test(l))).toEqual([]);
    expect(r.text).toMatch(/^# TYPE nomad_nomad_plan_wait_for_index summary$/m);
  });

  it('answers the JSON form without a format', async () => {
    const r = await scrapeRaw('server-1', '');
    const body = JSON.parse(r.text) as { Gauges: Array<{ Name: string; Labels: Record<string, string> }> };
    expect(body.Gauges).toContainEqual(expect.objectContaining({ Name: 'nomad.nomad.plan.queue_depth', Labels: { host: 'server-1' } }));
  });

  it('serves the ready client nodes of the region on the leader, and no server family on a client', async () => {
    expect((await scrape('server-1')).get(series('nomad_nomad_heartbeat_active', host('server-1')))).toBe(4);
    await admin(sim, 'server-1', 'nodes/down', { count: 1 });
    expect((await scrape('server-1')).get(series('nomad_nomad_heartbeat_active', host('server-1')))).toBe(3);
    await admin(sim, 'server-1', 'nodes', undefined, 'DELETE');
    expect((await scrape('server-2')).get(series('nomad_nomad_heartbeat_active', host('server-2')))).toBe(0);
    expect([...(await scrape('client-1')).keys()].filter((k) => k.startsWith('nomad_nomad_'))).toEqual([]);
  });
});

describe('blocked evaluations', () => {
  it('follow the queue fault and added evaluations, as the evaluations API lists them', async () => {
    const gauge = async () => (await scrape('server-1')).get(series('nomad_nomad_blocked_evals_total_blocked', host('server-1')));
    const base = await blockedByApi();
    expect(await gauge()).toBe(base);
    expect((await admin(sim, 'server-1', 'jobs/payments/gateway/queue', { queued: 4, running: 0 })).status).toBe(200);
    expect(await blockedByApi()).toBe(base + 1);
    expect(await gauge()).toBe(base + 1);
    expect((await admin(sim, 'server-1', 'evaluations', { blocked: 3 })).status).toBe(200);
    expect(await gauge()).toBe(base + 4);
    await admin(sim, 'server-1', 'jobs/payments/gateway/queue', undefined, 'DELETE');
    expect(await gauge()).toBe(await blockedByApi());
  });
});

describe('the licence', () => {
  it('reports the expiry the licence endpoint answers, in Unix seconds, and none on the community edition', async () => {
    await admin(sim, 'server-2', 'license', { expires_in_seconds: 86_400 * 10 });
    const res = await fetch(`${sim.agent('server-2').url}/v1/operator/license`, { headers: { 'X-Scheduler-Token': sim.readToken } });
    const expires = Date.parse(((await res.json()) as { License: { ExpirationTime: string } }).License.ExpirationTime) / 1000;
    expect((await scrape('server-2')).get(series('nomad_license_expiration_time_epoch', host('server-2')))).toBe(Math.floor(expires));
    expect([...(await scrape('ce')).keys()].some((k) => k.startsWith('nomad_license_'))).toBe(false);
  });
});

describe('the plan queue fault', () => {
  it('sets the leader’s queue depth and wait for index; DELETE empties it; a bad body is refused', async () => {
    expect((await admin(sim, 'server-1', 'telemetry', { plan_queue_depth: 25, plan_wait_for_index_ms: 480 })).status).toBe(200);
    const m = await scrape('server-1');
    expect(m.get(series('nomad_nomad_plan_queue_depth', host('server-1')))).toBe(25);
    expect(m.get(series('nomad_nomad_plan_wait_for_index', { ...host('server-1'), quantile: '0.99' }))).toBe(480);
    expect((await admin(sim, 'server-1', 'telemetry', { plan_queue_depth: -1 })).status).toBe(400);
    expect((await admin(sim, 'server-1', 'telemetry', { depth: 1 })).status).toBe(400);
    await admin(sim, 'server-1', 'telemetry', undefined, 'DELETE');
    expect((await scrape('server-1')).get(series('nomad_nomad_plan_queue_depth', host('server-1')))).toBe(0);
  });
});
