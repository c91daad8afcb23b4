/**
 * Timings the test suite used to assert as wall-clock limits, measured here instead (a loaded
 * machine makes any fixed limit flaky; the tests now check what happens, this says how fast).
 * Everything runs the daemon's own path: the gossip pool's body bytes through `decodeTask` (in the
 * collection thread for a small pool, on the offload pool for a large one), and the collectors'
 * jobs built from a config, whose parts are the declared endpoints' fetches, against the simulators.
 *
 *   node --import tsx bench/timings.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildJobs, collectorStates } from '../src/collectors/index.js';
import type { TargetKind } from '../src/collectors/index.js';
import { MEMBERS_OFFLOAD_BYTES as OFFLOAD_BYTES, membersPoll } from '../src/collectors/agent/members.js';
import { collectionOffloadPool, decodeTask } from '../src/collectors/decoding.js';
import { parseConfig } from '../src/config/load.js';
import { Received } from '../src/upstream/received.js';
import { startAgentSimulator } from '../simulators/agent/index.js';
import { startTeamsSimulator } from '../simulators/teams/index.js';
import { jobContext } from '../src/jobs/job-context.js';
import { switchesOf } from '../test/helpers/switches.js';
import { NEVER } from '../test/helpers/schedules.js';

const offload = collectionOffloadPool(1);

/** A token file for the bench's targets (test/helpers' temp files hook into the test runner, which a bench runs without). */
const scratch = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
function tempFile(name: string, content: string): string {
  const path = join(scratch, name);
  writeFileSync(path, content);
  return path;
}

const pool = (n: number) => ({
  Members: Array.from({ length: n }, (_, i) => ({
    Name: `server-${i}.global`,
    Addr: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    Tags: { region: 'global', dc: 'dc1', build: '1.9.3' },
    Status: i % 100 === 0 ? 'failed' : 'alive',
  })),
});

async function timed(f: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await f();
  return performance.now() - started;
}

/** `polls` answers of a pool of `n` members as the members endpoint's poller decodes them; bodies made beforehand (a large one is moved away). */
async function polls(n: number, max: number, times: number): Promise<number> {
  const text = JSON.stringify(pool(n));
  const bodies = Array.from({ length: times }, () => Buffer.from(text));
  const ctx = jobContext(offload);
  const context = { target: 't', endpoint: 'members' };
  return timed(async () => {
    for (const body of bodies) await decodeTask(ctx, membersPoll, Received.of(body), (bytes) => ({ body: bytes, max, context }), OFFLOAD_BYTES);
  });
}

/**
 * A small pool (under OFFLOAD_BYTES: the collection thread decodes it) per poll, and 5,000 vs 50,000
 * members on the offload pool, over max_members (1,000 and 10,000): linear is ~10×, quadratic ~100×.
 */
async function membersPolls(): Promise<Record<string, number>> {
  const small = 1_000;
  if (Buffer.byteLength(JSON.stringify(pool(small))) >= OFFLOAD_BYTES) throw new Error(`a pool of ${small} is not small: it would be offloaded`);
  await polls(small, 20_000, 20); // warm up the collection thread's path
  await polls(5_000, 1_000, 2); // and the worker's
  const inThread = (await polls(small, 20_000, 100)) / 100;
  const large5k = (await polls(5_000, 1_000, 10)) / 10;
  const large50k = (await polls(50_000, 10_000, 3)) / 3;
  return {
    members_1k_in_thread_per_poll_ms: inThread,
    members_5k_offloaded_per_poll_ms: large5k,
    members_50k_offloaded_per_poll_ms: large50k,
    ratio: large50k / large5k,
  };
}

/**
 * `times` runs of the one job a target of `kind` becomes (its declared endpoints, `on` switched on
 * and the others off), each checked for a failed part: a run that failed measures nothing.
 */
async function jobRuns(kind: TargetKind, fields: string, on: (id: string) => boolean, times: number): Promise<number> {
  const config = `${kind}:\n  - { name: bench, schedule: "${NEVER}", ${[fields, ...switchesOf(kind, (e) => on(e.id))].join(', ')} }\n`;
  const ctx = jobContext(offload);
  const jobs = buildJobs(parseConfig(config, 'bench.yml'), ctx, collectorStates());
  try {
    return await timed(async () => {
      for (let i = 0; i < times; i++) {
        const outcomes = (await Promise.all(jobs.map((j) => j.run(AbortSignal.timeout(30_000))))).flat();
        const failed = outcomes.find((o) => o.error);
        if (failed) throw new Error(`${kind} part ${failed.part} failed: ${failed.error?.message}`);
      }
    });
  } finally {
    await Promise.all(ctx.clients.map((c) => c.close()));
  }
}

/** One listing of 5,000 teams, 50 pages of 100, at vigil's highest request rate. */
async function teamsListing(): Promise<Record<string, number>> {
  const sim = await startTeamsSimulator({ organizations: [{ name: 'huge', teams: 5000 }], rateLimit: { perSecond: 100_000 } });
  try {
    const token = tempFile('token', sim.ownerToken('huge'));
    const fields = `address: "${sim.url}", token_file: ${token}, organization: huge, page_size: 100, requests_per_second: 1000`;
    return { pages_50_of_100_ms: await jobRuns('teams', fields, () => false, 1) };
  } finally {
    await sim.close();
  }
}

/** 20 runs of an agent's job with only the gossip pool (of 5,000 members) switched on (health is always polled). */
async function agentMembers(): Promise<Record<string, number>> {
  const sim = await startAgentSimulator({ agents: [{ name: 'server-1', role: 'server', members: 5_000 }] });
  try {
    const fields = `address: "${sim.agent('server-1').url}", token_file: ${tempFile('token', sim.managementToken)}`;
    return { members_5k_runs_20_ms: await jobRuns('agents', fields, (id) => id === 'agent/members', 20) };
  } finally {
    await sim.close();
  }
}

/**
 * 200 runs of an agent's job with only autopilot health switched on (a region of 7 servers), against
 * 200 with only self: what the autopilot part adds to a poll, as a ratio to an endpoint every agent polls.
 */
async function agentAutopilot(): Promise<Record<string, number>> {
  const sim = await startAgentSimulator({ agents: [{ name: 'server-1', role: 'server', members: 7 }] });
  try {
    const fields = `address: "${sim.agent('server-1').url}", token_file: ${tempFile('token', sim.managementToken)}`;
    await jobRuns('agents', fields, (id) => id === 'agent/autopilot', 20); // warm up
    const autopilot = (await jobRuns('agents', fields, (id) => id === 'agent/autopilot', 200)) / 200;
    const self = (await jobRuns('agents', fields, (id) => id === 'agent/self', 200)) / 200;
    return { autopilot_7_servers_per_run_ms: autopilot, self_per_run_ms: self, ratio: autopilot / self };
  } finally {
    await sim.close();
  }
}

/**
 * What reading vigil's ACL token expiry adds to an agent's run: 200 runs with health alone, then
 * 200 with health and the token endpoint (ACLs on), in one process, as a ratio.
 */
async function agentToken(): Promise<Record<string, number>> {
  const sim = await startAgentSimulator({ agents: [{ name: 'server-1', role: 'server' }], acl: { enabled: true } });
  try {
    const fields = `address: "${sim.agent('server-1').url}", token_file: ${tempFile('token', sim.readToken)}`;
    await jobRuns('agents', fields, (id) => id === 'agent/token', 50); // warm up
    const healthOnly = await jobRuns('agents', fields, () => false, 200);
    const withToken = await jobRuns('agents', fields, (id) => id === 'agent/token', 200);
    return { health_runs_200_ms: healthOnly, health_and_token_runs_200_ms: withToken, ratio: withToken / healthOnly };
  } finally {
    await sim.close();
  }
}

try {
  const results = {
    members_polls: await membersPolls(),
    teams_listing: await teamsListing(),
    agent_members: await agentMembers(),
    agent_autopilot: await agentAutopilot(),
    agent_token: await agentToken(),
  };
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} finally {
  await offload.close();
  rmSync(scratch, { recursive: true, force: true });
}
