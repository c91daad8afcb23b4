import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { admin } from '../helpers/agent-sim.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { series, seriesOf } from '../helpers/exposition.js';
import { alertsThatCanPage, rulesOnScrapeTest, runRulesOnScrapeTest } from '../helpers/rules-on-scrape.js';
import { NEVER } from '../helpers/schedules.js';

/**
 * vigil listing the client nodes of a region through two of its agents (a server and a client),
 * behind ACLs, in pages of 5: what it counts, which nodes get series of their own, and what the
 * shipped rules make of one scrape of it.
 */
const NODE_READ_ONLY = 'node-read-only-token';
const AGENT_READ_ONLY = 'agent-read-only-token';
let sim: AgentSimulator;
let d: TestDaemon;

const target = (name: string, agent: string, token: string, extra = '') =>
  `  - { name: ${name}, address: "${sim.agent(agent).url}", token_file: "${tempFile('agent-token', token)}", schedule: "${NEVER}", nodes_schedule: "${NEVER}", node_page_size: 5${extra} }\n`;
const T = (t: string, labels: Record<string, string> = {}) => ({ target: t, ...labels });
const nodesJob = (t: string, labels: Record<string, string> = {}) => ({ collector: 'scheduler_nodes', target: t, ...labels });
const count = (m: Map<string, number>, t: string, match: Record<string, string>) =>
  [...seriesOf(m, 'scheduler_nodes')]
    .filter(([k]) => k.includes(`target="${t}"`) && Object.entries(match).every(([l, v]) => k.includes(`${l}="${v}"`)))
    .reduce((s, [, v]) => s + v, 0);

beforeAll(async () => {
  sim = await startAgentSimulator({
    agents: [
      { name: 'server-1', role: 'server' },
      { name: 'client-1', role: 'client' },
    ],
    acl: {
      enabled: true,
      tokens: [
        { secret: NODE_READ_ONLY, policies: ['node:read', 'agent:read'] },
        { secret: AGENT_READ_ONLY, policies: ['agent:read'] },
      ],
    },
    nodes: { count: 12, pools: ['web', 'batch'] },
  });
  d = await startTestDaemon(
    `agents:\n${target('server', 'server-1', NODE_READ_ONLY)}${target('client', 'client-1', NODE_READ_ONLY)}${target('no-node-read', 'server-1', AGENT_READ_ONLY)}`,
  );
});
afterAll(async () => {
  await d?.close();
  await sim?.close();
});

describe("the region's client nodes", () => {
  it('are counted by pool and status from every page, with 0 for the statuses none has', async () => {
    const m = await d.metrics();
    for (const t of ['server', 'client']) {
      expect(count(m, t, {}), t).toBe(12);
      expect(count(m, t, { node_pool: 'batch', status: 'ready' })).toBe(6);
      expect(count(m, t, { node_pool: 'batch', status: 'down' })).toBe(0);
      expect(m.get(series('scheduler_nodes_listing_pages', T(t)))).toBe(3);
      expect(m.get(series('scheduler_agent_endpoint_up', T(t, { endpoint: 'nodes' })))).toBe(1);
    }
    expect(seriesOf(m, 'scheduler_node_status').size).toBe(0);
  });

  it('are not applicable to a token without node:read: no series, no failure', async () => {
    const m = await d.metrics();
    expect(count(m, 'no-node-read', {})).toBe(0);
    expect(m.has(series('scheduler_agent_endpoint_up', T('no-node-read', { endpoint: 'nodes' })))).toBe(false);
    expect(m.get(series('vigil_collector_up', nodesJob('no-node-read')))).toBe(1);
  });

  it('give the lost and draining nodes series of their own (client-3 of pool web drains)', async () => {
    expect((await admin(sim, 'server-1', 'nodes/down', { pool: 'batch', share: 0.5 })).status).toBe(200);
    expect((await admin(sim, 'server-1', 'nodes/client-3.global', { drain: true })).status).toBe(200);
    await d.collect();
    const m = await d.metrics();
    expect(count(m, 'client', { node_pool: 'batch', status: 'down' })).toBe(3);
    const lost = [...seriesOf(m, 'scheduler_node_status')].filter(([k]) => k.includes('target="client"'));
    const label = (k: string, l: string) => new RegExp(`[{,]${l}="(\\w+)"`).exec(k)?.[1];
    expect(lost.map(([k]) => ['node_pool', 'status', 'eligibility'].map((l) => label(k, l)).join(' '))).toEqual([
      'batch down eligible',
      'batch down eligible',
      'batch down eligible',
    ]);
    expect([...seriesOf(m, 'scheduler_node_draining')].filter(([k]) => k.includes('target="client"') && k.includes('node="client-3.global"'))).toHaveLength(1);
  });

  it("half of a pool down: the shipped rules page once for the region and pool, and nothing else pages (but the lost nodes' own warnings)", async () => {
    const text = await d.scrape();
    const pool = {
      alertname: 'SchedulerNodePoolDown',
      exp_alerts: [
        {
          exp_labels: { severity: 'critical', region: 'global', node_pool: 'batch' },
          exp_annotations: {
            summary: "A large share of a node pool's client nodes is down.",
            description: '50% of the eligible client nodes of pool "batch" in region global have been down or disconnected for 10 minutes (at least 3 nodes).',
            runbook_url: 'https://github.com/vigil-monitoring/vigil/blob/main/docs/runbooks.md#schedulernodepooldown',
          },
        },
      ],
    };
    const quiet = alertsThatCanPage()
      .filter((a) => a !== 'SchedulerNodePoolDown' && a !== 'SchedulerNodeDownLong')
      .map((alertname) => ({ alertname, exp_alerts: [] }));
    const r = runRulesOnScrapeTest(rulesOnScrapeTest(text, [pool, ...quiet]));
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('fail as too_large, on a server that ignores per_page (before paging), rather than hold more than was asked', async () => {
    const old = await startAgentSimulator({ agents: [{ name: 's', role: 'server' }], nodes: { count: 12 } }, { profile: '0.x' });
    const v = await startTestDaemon(
      `agents:\n  - { name: old, address: "${old.agent('s').url}", schedule: "${NEVER}", nodes_schedule: "${NEVER}", node_page_size: 5 }\n`,
    );
    try {
      const m = await v.metrics();
      expect(m.get(series('vigil_collector_failing', nodesJob('old', { reason: 'too_large' })))).toBe(1);
      expect(m.get(series('scheduler_agent_endpoint_up', T('old', { endpoint: 'nodes' })))).toBe(0);
      expect(count(m, 'old', {})).toBe(0);
      expect(v.logs().some((l) => typeof l.err === 'string' && l.err.includes('page 1 holds 12 nodes, more than the per_page of 5 asked for'))).toBe(true);
    } finally {
      await v.close();
      await old.close();
    }
  });
});
