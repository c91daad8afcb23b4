/**
 * Timings the test suite used to assert as wall-clock limits, measured here instead (a loaded
 * machine makes any fixed limit flaky; the tests now check what happens, this says how fast).
 * Each is reported with a linear reference measured in the same run, so the ratio reads alone.
 *
 *   node --import tsx bench/timings.ts
 */
import { memberLimiter, membersFamilies } from '../src/collectors/agent/members.js';
import { renderGroup } from '../src/metrics/render.js';
import { agentMembersResponse } from '../src/upstream/agent/members.js';
import { parseBody } from '../src/upstream/parse.js';
import { startAgentSimulator } from '../simulators/agent/index.js';
import { startTeamsSimulator } from '../simulators/teams/index.js';

const pool = (n: number) => ({
  Members: Array.from({ length: n }, (_, i) => ({
    Name: `server-${i}.global`,
    Addr: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    Tags: { region: 'global', dc: 'dc1', build: '1.9.3' },
    Status: i % 100 === 0 ? 'failed' : 'alive',
  })),
});

function timed(f: () => unknown): number {
  const started = performance.now();
  f();
  return performance.now() - started;
}

async function timedAsync(f: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await f();
  return performance.now() - started;
}

/** Parsing and mapping 50,000 members vs 5,000: linear is ~10×, quadratic ~100×. */
function membersMapping(): Record<string, number> {
  const run = (n: number, max: number) => () =>
    renderGroup(membersFamilies, memberLimiter(max)(parseBody(agentMembersResponse, pool(n), 'agent/members')), { target: 't' });
  run(5_000, 1_000)(); // warm up
  const small = timed(run(5_000, 1_000));
  const large = timed(run(50_000, 10_000));
  return { members_5k_ms: small, members_50k_ms: large, ratio: large / small };
}

async function teamsListing(): Promise<Record<string, number>> {
  const sim = await startTeamsSimulator({ organizations: [{ name: 'huge', teams: 5000 }], rateLimit: { perSecond: 100_000 } });
  try {
    const token = sim.ownerToken('huge');
    const page = (n: number) =>
      fetch(`${sim.url}/api/v2/organizations/huge/teams?page%5Bsize%5D=100&page%5Bnumber%5D=${n}`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json());
    const ms = await timedAsync(async () => {
      for (let p = 1; p <= 50; p++) await page(p);
    });
    return { pages_50_of_100_ms: ms };
  } finally {
    await sim.close();
  }
}

async function agentMembers(): Promise<Record<string, number>> {
  const sim = await startAgentSimulator({ agents: [{ name: 'server-1', role: 'server', members: 5_000 }] });
  try {
    const get = () => fetch(`${sim.agent('server-1').url}/v1/agent/members`, { headers: { 'X-Scheduler-Token': sim.managementToken } }).then((r) => r.json());
    const ms = await timedAsync(async () => {
      for (let i = 0; i < 20; i++) await get();
    });
    return { members_5k_answers_20_ms: ms };
  } finally {
    await sim.close();
  }
}

const results = { members_mapping: membersMapping(), teams_listing: await teamsListing(), agent_members: await agentMembers() };
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
