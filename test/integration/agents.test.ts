import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentScenario, type AgentSimulator } from '../../simulators/agent/index.js';
import { admin } from '../helpers/agent-sim.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series, seriesOf } from '../helpers/exposition.js';
import { agentCollector, agentPlan, nodesPlan, workloadPlan } from '../../src/collectors/agent/collector.js';
import { autopilotEndpoint } from '../../src/collectors/agent/autopilot.js';
import { healthEndpoint } from '../../src/collectors/agent/health.js';
import { licenseEndpoint } from '../../src/collectors/agent/license.js';
import type { Plan } from '../../src/collectors/plan.js';
import { calledBy } from '../helpers/plans.js';

/**
 * vigil against the cluster-agent simulator, behind ACLs: a server leading a pool of 4
 * (leader-1.global, server-1..3.global), a client-only agent, and an agent in both modes.
 */
const scenario: AgentScenario = {
  agents: [
    { name: 'leader-1', role: 'server', members: 4 },
    { name: 'client-1', role: 'client', servers: ['10.0.0.11:4647', '10.0.0.12:4647'], allocations: 3 },
    { name: 'both-1', role: 'both', region: 'eu' },
  ],
  acl: { enabled: true },
};

let sim: AgentSimulator;
let readToken: string;
let wrongToken: string;
const daemons: TestDaemon[] = [];

beforeAll(async () => {
  sim = await startAgentSimulator(scenario);
  readToken = tempFile('agent-token', `${sim.readToken}\n`);
  wrongToken = tempFile('agent-token', 'not-a-token\n');
});
afterAll(async () => {
  await Promise.all(daemons.map((d) => d.close()));
  await sim.close();
});

/** One agent target of the YAML list; schedules never fire, so only collect() runs jobs. */
function target(name: string, agent: string, extra: Record<string, string | number | boolean> = {}): string {
  const keys = { name, address: sim.agent(agent).url, token_file: readToken, schedule: NEVER, ...extra };
  return `  - { ${Object.entries(keys)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`)
    .join(', ')} }\n`;
}

async function daemon(...targets: string[]): Promise<TestDaemon> {
  const d = await startTestDaemon(`agents:\n${targets.join('')}`);
  daemons.push(d);
  return d;
}

/** The endpoints the agent's plan (or its node listing's) calls for a target of these keys, by id. */
const called = (extra: Record<string, unknown> = {}, plan: Plan = agentPlan as Plan) =>
  calledBy(plan, agentCollector.target.parse({ name: 'x', address: 'http://127.0.0.1:1', token_file: readToken, ...extra }));
/** The agent's label of an endpoint on scheduler_agent_endpoint_up: its id without `agent/`. */
const label = (id: string) => id.replace(/^agent\//, '');

const T = (target: string, labels: Record<string, string> = {}) => ({ target, ...labels });
const job = (target: string, labels: Record<string, string> = {}) => ({ collector: 'scheduler_agent', target, ...labels });
const failures = (m: Map<string, number>, target: string, reason: string) => m.get(series('vigil_collector_failures_total', job(target, { reason })));
const runs = (m: Map<string, number>, target: string) => m.get(series('vigil_collector_runs_total', job(target))) ?? 0;
const forceLeave = (node: string) =>
  fetch(`${sim.agent('leader-1').url}/v1/agent/force-leave?node=${encodeURIComponent(node)}`, {
    method: 'POST',
    headers: { 'X-Scheduler-Token': sim.managementToken },
  });

describe('gossip members of a server', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await daemon(target('leader', 'leader-1'), target('capped', 'leader-1', { max_members: 1 }));
  });

  it('exports every member alive at first', async () => {
    const m = await d.metrics();
    expect(m.get(series('scheduler_agent_members', T('leader', { status: 'alive' })))).toBe(4);
    expect(m.get(series('scheduler_agent_members', T('leader', { status: 'failed' })))).toBe(0);
    expect(m.get(series('scheduler_agent_member_status', T('leader', { member: 'server-2.global', status: 'alive' })))).toBe(1);
  });

  it('flips a failed member’s state set and counts it as failed', async () => {
    expect((await admin(sim, 'leader-1', 'members/server-2', { status: 'failed' })).status).toBe(200);
    await d.collect();
    const m = await d.metrics();
    expect(m.get(series('scheduler_agent_member_status', T('leader', { member: 'server-2.global', status: 'failed' })))).toBe(1);
    expect(m.get(series('scheduler_agent_member_status', T('leader', { member: 'server-2.global', status: 'alive' })))).toBe(0);
    expect(m.get(series('scheduler_agent_members', T('leader', { status: 'failed' })))).toBe(1);
    expect(m.get(series('scheduler_agent_members', T('leader', { status: 'alive' })))).toBe(3);
    expect(m.get(series('scheduler_agent_serf_failed', T('leader')))).toBe(1);
  });

  it('shows a force-left member as left', async () => {
    await admin(sim, 'leader-1', 'members/server-3', { status: 'failed' });
    expect((await forceLeave('server-3')).status).toBe(200);
    await d.collect();
    const m = await d.metrics();
    expect(m.get(series('scheduler_agent_member_status', T('leader', { member: 'server-3.global', status: 'left' })))).toBe(1);
    expect(m.get(series('scheduler_agent_member_status', T('leader', { member: 'server-3.global', status: 'failed' })))).toBe(0);
    expect(m.get(series('scheduler_agent_members', T('leader', { status: 'left' })))).toBe(1);
  });

  it('caps per-member series at max_members, keeps a member that is not alive, and counts the rest across runs', async () => {
    await d.collect();
    const m = await d.metrics();
    const kept = new Set(
      [...seriesOf(m, 'scheduler_agent_member_info').keys()].filter((k) => k.includes('target="capped"')).map((k) => /member="([^"]*)"/.exec(k)?.[1]),
    );
    expect(kept).toEqual(new Set(['server-2.global']));
    expect([...seriesOf(m, 'scheduler_agent_member_status').keys()].filter((k) => k.includes('target="capped"'))).toHaveLength(3);
    expect(runs(m, 'capped')).toBeGreaterThanOrEqual(2);
    expect(m.get(series('vigil_agent_member_series_dropped_total', T('capped')))).toBe(3 * runs(m, 'capped'));
    expect(m.get(series('vigil_agent_member_series_dropped_total', T('leader')))).toBe(0);
    // the counts are not capped
    expect(m.get(series('scheduler_agent_members', T('capped', { status: 'alive' })))).toBe(2);
  });

  it('says so in the log once per target when the cap bites, never for a pool within it', () => {
    const capped = d.logs().filter((l) => typeof l.msg === 'string' && l.msg.includes('max_members'));
    expect(capped.map((l) => ({ level: l.level, target: l.target, members: l.members, max_members: l.max_members, dropped: l.dropped }))).toEqual([
      { level: 'warn', target: 'capped', members: 4, max_members: 1, dropped: 3 },
    ]);
  });
});

describe('agent health', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await daemon(target('both', 'both-1'));
  });
  afterAll(async () => {
    await admin(sim, 'both-1', 'health', undefined, 'DELETE');
  });

  it('reports an unhealthy part as 0 while the agent stays up (its 500 carries the health body)', async () => {
    await admin(sim, 'both-1', 'health', { server: { ok: false, message: 'no leader' } });
    await d.collect();
    const m = await d.metrics();
    expect(m.get(series('scheduler_agent_health_ok', T('both', { role: 'server' })))).toBe(0);
    expect(m.get(series('scheduler_agent_health_ok', T('both', { role: 'client' })))).toBe(1);
    expect(m.get(series('scheduler_agent_up', T('both')))).toBe(1);
    expect(m.get(series('vigil_collector_up', job('both')))).toBe(1);
    expect(m.get(series('vigil_upstream_request_duration_seconds_count', T('both', { endpoint: 'agent/health', code: '500' })))).toBeGreaterThanOrEqual(1);
  });

  it('exports the agent’s identity and stats from /agent/self', async () => {
    const m = await d.metrics();
    expect(m.get(series('scheduler_agent_info', T('both', { name: 'both-1', region: 'eu', datacenter: 'dc1', version: '1.9.3', server: 'true' })))).toBe(1);
    expect(m.get(series('scheduler_agent_raft_leader', T('both')))).toBe(1);
    expect(m.get(series('scheduler_agent_known_servers', T('both')))).toBeGreaterThan(0);
  });
});

describe('endpoints that do not apply to an agent', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await daemon(target('client', 'client-1'), target('server', 'leader-1'));
  });

  it('treats members on a client-only agent as not applicable: no failure, no members series', async () => {
    const m = await d.metrics();
    expect(m.get(series('vigil_collector_up', job('client')))).toBe(1);
    expect(seriesOf(m, 'vigil_collector_failures_total').size).toBeGreaterThan(0);
    expect([...seriesOf(m, 'vigil_collector_failures_total')].filter(([k, v]) => k.includes('target="client"') && v > 0)).toEqual([]);
    expect([...seriesOf(m, 'scheduler_agent_members').keys()].some((k) => k.includes('target="client"'))).toBe(false);
    expect(m.has(series('scheduler_agent_endpoint_up', T('client', { endpoint: 'members' })))).toBe(false);
    expect(m.get(series('vigil_upstream_request_duration_seconds_count', T('client', { endpoint: 'agent/members', code: '500' })))).toBe(runs(m, 'client'));
  });

  it('still exports what a client has: client health, its known servers, allocations', async () => {
    const m = await d.metrics();
    expect(m.get(series('scheduler_agent_health_ok', T('client', { role: 'client' })))).toBe(1);
    expect(m.has(series('scheduler_agent_health_ok', T('client', { role: 'server' })))).toBe(false);
    expect(m.get(series('scheduler_agent_known_servers', T('client')))).toBe(2);
    expect(m.get(series('scheduler_agent_client_allocations', T('client')))).toBe(3);
  });

  it('treats servers on a server-only agent (501) as not applicable', async () => {
    const m = await d.metrics();
    expect(m.get(series('vigil_collector_up', job('server')))).toBe(1);
    expect(m.has(series('scheduler_agent_known_servers', T('server')))).toBe(false);
    expect(m.get(series('vigil_upstream_request_duration_seconds_count', T('server', { endpoint: 'agent/servers', code: '501' })))).toBeGreaterThanOrEqual(1);
  });
});

describe('an agent that hangs', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await daemon(target('hung', 'both-1', { timeout: '300ms' }), target('fine', 'leader-1', { timeout: '300ms' }));
    await admin(sim, 'both-1', 'faults', { hang: true });
  });
  afterAll(async () => {
    await admin(sim, 'both-1', 'faults', undefined, 'DELETE');
  });

  it('is down with reason timeout within its timeout, its data series gone', async () => {
    const before = await d.metrics();
    // The reason `timeout` (below) is what proves the attempt was cut at its timeout; how long that
    // took on a loaded machine is no behaviour of vigil's.
    await d.collect();
    const m = await d.metrics();
    expect(m.get(series('scheduler_agent_up', T('hung')))).toBe(0);
    expect(m.get(series('vigil_collector_up', job('hung')))).toBe(0);
    // Every endpoint its plan calls timed out: health, the token, members, servers, self, autopilot.
    expect((failures(m, 'hung', 'timeout') ?? 0) - (failures(before, 'hung', 'timeout') ?? 0)).toBe(called({ timeout: '300ms' }).length);
    // What SchedulerAgentDown reads: the last run's reasons, and only those.
    expect([...seriesOf(m, 'vigil_collector_failing')].filter(([k]) => k.includes('target="hung"') && k.includes('collector="scheduler_agent"'))).toEqual([
      [series('vigil_collector_failing', job('hung', { reason: 'timeout' })), 1],
    ]);
    // The node listing is a job of its own, failing on its own.
    expect(m.get(series('vigil_collector_failing', { collector: 'scheduler_nodes', target: 'hung', reason: 'timeout' }))).toBe(1);
    expect(m.get(series('scheduler_agent_endpoint_up', T('hung', { endpoint: 'self' })))).toBe(0);
    expect([...seriesOf(m, 'scheduler_agent_info').keys()].some((k) => k.includes('target="hung"'))).toBe(false);
    const logged = d.logs().filter((l) => l.msg === 'collection failed' && l.target === 'hung');
    expect(logged.some((l) => l.part === healthEndpoint.id && l.reason === 'timeout')).toBe(true);
  });

  it('leaves another agent target of the same daemon unaffected', async () => {
    const m = await d.metrics();
    expect(m.get(series('scheduler_agent_up', T('fine')))).toBe(1);
    expect(m.get(series('vigil_collector_up', job('fine')))).toBe(1);
    expect(failures(m, 'fine', 'timeout')).toBe(0);
    expect([...seriesOf(m, 'vigil_collector_failing').keys()].filter((k) => k.includes('target="fine"'))).toEqual([]);
    expect(m.get(series('scheduler_agent_members', T('fine', { status: 'alive' })))).toBeGreaterThan(0);
  });
});

describe('a wrong token', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await daemon(target('denied', 'both-1', { token_file: wrongToken, host: true }), target('allowed', 'both-1', { host: true }));
  });

  it('fails with http_4xx only the endpoints that need the token (members, servers, self, host, token), not health', async () => {
    // Every endpoint the plan calls with the token, but autopilot and the licence, for which a 403 says "not applicable".
    const withToken = called({ host: true }).filter((id) => id !== healthEndpoint.id && id !== autopilotEndpoint.id && id !== licenseEndpoint.id);
    const m = await d.metrics();
    const n = runs(m, 'denied');
    expect(n).toBeGreaterThanOrEqual(1);
    expect(failures(m, 'denied', 'http_4xx')).toBe(withToken.length * n);
    expect(m.get(series('scheduler_agent_up', T('denied')))).toBe(1);
    for (const id of withToken) {
      expect(m.get(series('scheduler_agent_endpoint_up', T('denied', { endpoint: label(id) }))), id).toBe(0);
      expect(m.get(series('vigil_upstream_request_duration_seconds_count', T('denied', { endpoint: id, code: '403' }))), id).toBe(n);
    }
    // An unknown token is no "not applicable": the agent says 403 "ACL token not found".
    expect(m.get(series('scheduler_agent_endpoint_up', T('denied', { endpoint: 'token' })))).toBe(0);
    expect(m.get(series('vigil_upstream_request_duration_seconds_count', T('denied', { endpoint: 'agent/token', code: '403' })))).toBe(n);
    const parts = new Set(
      d
        .logs()
        .filter((l) => l.target === 'denied' && l.reason === 'http_4xx')
        .map((l) => l.part),
    );
    expect([...seriesOf(m, 'vigil_collector_failing').keys()].filter((k) => k.includes('target="denied"'))).toEqual([
      series('vigil_collector_failing', job('denied', { reason: 'http_4xx' })),
    ]);
    expect(parts).toEqual(new Set(withToken));
  });

  it('is the cause: the same agent with the read token fails nothing', async () => {
    const m = await d.metrics();
    expect(failures(m, 'allowed', 'http_4xx')).toBe(0);
    expect(m.get(series('vigil_collector_up', job('allowed')))).toBe(1);
    expect(m.get(series('scheduler_agent_host_disk_size_bytes', T('allowed', { mount: '/' })))).toBe(51_200 * 1024 * 1024);
  });

  it('never puts the token in a log line', () => {
    const text = JSON.stringify(d.logs());
    expect(text).not.toContain('not-a-token');
    expect(text).not.toContain(sim.readToken);
  });
});

describe('a token file that can no longer be read', () => {
  it('fails the endpoints that need the token with reason config, while health (no ACL) keeps the agent up', async () => {
    const vanishing = tempFile('agent-token', `${sim.readToken}\n`);
    const d = await daemon(target('rotated', 'both-1', { token_file: vanishing }));
    rmSync(vanishing);
    await d.collect();
    const m = await d.metrics();
    expect(m.get(series('scheduler_agent_up', T('rotated')))).toBe(1);
    // Every endpoint of the three plans that sends the token: all but health.
    const withToken = [...called(), ...called({}, nodesPlan as Plan), ...called({}, workloadPlan as Plan)].filter((id) => id !== healthEndpoint.id);
    expect(failures(m, 'rotated', 'config')).toBe(called().filter((id) => id !== healthEndpoint.id).length);
    const logged = d.logs().filter((l) => l.target === 'rotated' && l.reason === 'config');
    expect(logged.map((l) => l.part).sort()).toEqual(withToken.sort());
    expect(String(logged[0]?.err)).toContain('cannot read token_file');
  });
});
