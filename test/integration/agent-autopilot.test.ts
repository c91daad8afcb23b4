import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobs, collectorStates } from '../../src/collectors/index.js';
import { collectionOffloadPool } from '../../src/collectors/decoding.js';
import { parseConfig } from '../../src/config/load.js';
import { linesText } from '../../src/metrics/encoded-lines.js';
import { jobContext } from '../../src/jobs/job-context.js';
import type { PartOutcome } from '../../src/jobs/part.js';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { admin } from '../helpers/agent-sim.js';
import { parseExposition } from '../helpers/exposition.js';

/**
 * The agent job against the simulator: autopilot health as vigil reads it, the 429 of an unhealthy
 * region read as data (not a rate limit), and the leader changes counted across polls and reloads.
 */
const offload = collectionOffloadPool(1);
let sim: AgentSimulator;

beforeAll(async () => {
  sim = await startAgentSimulator({ agents: [{ name: 'server-1', role: 'server', members: 3 }] });
});
afterAll(async () => {
  await sim.close();
  await offload.close();
});

const config = () =>
  parseConfig(`agents:\n  - { name: s1, address: "${sim.agent('server-1').url}", schedule: "0 0 0 1 1 *", members: false, servers: false }\n`, 'test');

/** One run of every job, as the engine runs them, with the states it keeps across reloads. */
async function run(states = collectorStates(), ctx = jobContext(offload)) {
  const outcomes: PartOutcome[] = (await Promise.all(buildJobs(config(), ctx, states).map((j) => j.run(AbortSignal.timeout(10_000))))).flat();
  const text = outcomes.flatMap((o) => [...o.group.values()].map(linesText)).join('');
  await Promise.all(ctx.clients.map((c) => c.close()));
  return { series: parseExposition(text), outcomes, ctx };
}

describe('autopilot health through the agent job', () => {
  it('reads a killed server from the 429 answer as data, and counts no rate limit', async () => {
    await admin(sim, 'server-1', 'autopilot/servers/server-2.global', { killed: true });
    try {
      const { series, outcomes, ctx } = await run();
      expect(outcomes.find((o) => o.part === 'autopilot')?.error).toBeUndefined();
      expect(series.get('scheduler_agent_autopilot_failure_tolerance{target="s1"}')).toBe(0);
      expect(series.get('scheduler_agent_autopilot_server_healthy{server="server-2.global",target="s1"}')).toBe(0);
      expect([...ctx.upstreamStats.values()].map((s) => s.rateLimited)).toEqual([0]);
    } finally {
      await admin(sim, 'server-1', 'autopilot', undefined, 'DELETE');
    }
  });

  it('counts each change of the leader between polls, and keeps the count across a reload', async () => {
    const states = collectorStates();
    const changes = async () => (await run(states)).series.get('scheduler_agent_autopilot_leader_changes_total{target="s1"}');
    expect(await changes()).toBe(0);
    await admin(sim, 'server-1', 'autopilot/servers/server-1.global', { killed: true });
    expect(await changes()).toBe(1);
    // A reload builds new jobs from the same states: the count goes on.
    await admin(sim, 'server-1', 'autopilot/servers/server-2.global', { killed: true });
    expect(await changes()).toBe(2);
    await admin(sim, 'server-1', 'autopilot', undefined, 'DELETE');
    expect(await changes()).toBe(3);
  });
});
