import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import type { Estate } from '../../src/server/estate-model.js';
import { admin } from '../helpers/agent-sim.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';

/**
 * An agent's region on the estate page and in its JSON, over HTTP as curl sees them: three raft
 * servers with one killed, client nodes in a pool with a hostile name with some down, and vigil's
 * read token two days from its end.
 */
const DAY = 86_400;
const HOSTILE = 'web<img src=x onerror="alert(1)">';
let sim: AgentSimulator;
let vigil: TestDaemon;

const ok = async (res: Promise<Response>) => {
  const r = await res;
  expect(r.status, await r.text()).toBe(200);
};

beforeAll(async () => {
  sim = await startAgentSimulator({
    agents: [{ name: 'server-1', role: 'server', members: 3 }],
    acl: { enabled: true },
    nodes: { count: 8, pools: [HOSTILE, 'batch'] },
  });
  await ok(admin(sim, 'server-1', 'autopilot/servers/server-2.global', { killed: true }));
  await ok(admin(sim, 'server-1', 'nodes/down', { pool: HOSTILE, count: 2 }));
  await ok(admin(sim, 'server-1', 'nodes/down', { pool: 'batch', count: 1, status: 'disconnected' }));
  await ok(admin(sim, 'server-1', 'acl/read-token', { expires_in_seconds: 2 * DAY + 3600, created_seconds_ago: 28 * DAY }));
  const token = tempFile('agent-token', sim.readToken);
  vigil = await startTestDaemon(
    `agents:\n  - { name: region, address: "${sim.agent('server-1').url}", token_file: "${token}", schedule: "${NEVER}", nodes_schedule: "${NEVER}" }\n`,
  );
  await vigil.collect();
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});

describe('GET /api/v1/estate', () => {
  it('reports the autopilot quorum, the client nodes per pool by status and the days left on the token', async () => {
    const estate = (await (await fetch(`${vigil.url}/api/v1/estate`)).json()) as Estate;
    const region = estate.agents.find((a) => a.target === 'region')!;
    expect(region.fleet.autopilot).toMatchObject({ healthy: false, failureTolerance: 0, voters: 3 });
    expect(region.fleet.pools).toEqual([
      { pool: 'batch', ready: 3, down: 0, disconnected: 1 },
      { pool: HOSTILE, ready: 2, down: 2, disconnected: 0 },
    ]);
    expect(region.tokenDaysLeft).toBe(2);
    expect(region.problems).toEqual(
      expect.arrayContaining(['autopilot failure tolerance 0: one more server lost stops the region', `pool ${HOSTILE}: 2 client nodes down`]),
    );
  });
});

describe('GET /', () => {
  it('renders the quorum, the pools and the token line without script, the hostile pool as text', async () => {
    const res = await fetch(`${vigil.url}/`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('<img');
    expect(text).toContain('<span class="badge bad">failure tolerance 0</span>');
    expect(text).toContain('<tr class="row-bad"><th scope="row">global</th><td>web&#60;img src=x onerror=&#34;alert(1)&#34;&#62;</td><td>2</td>');
    expect(text).toContain('<strong>region</strong>: pool web&#60;img src=x onerror=&#34;alert(1)&#34;&#62;: 2 client nodes down');
    expect(text).toContain('<span class="badge warn">token expires in 2 days</span>');
  });
});
