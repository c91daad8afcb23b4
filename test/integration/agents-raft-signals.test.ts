import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { admin } from '../helpers/agent-sim.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series } from '../helpers/exposition.js';

/**
 * The raft, gossip, server-count and disk signals the scheduler alerts read, produced on demand by
 * the agent simulator and read through vigil's real collector: a leader and a follower of one region,
 * and a client.
 */
let sim: AgentSimulator;
let vigil: TestDaemon;
const MiB = 1024 * 1024;

beforeAll(async () => {
  sim = await startAgentSimulator({
    agents: [
      { name: 'server-a', role: 'server', members: 3 },
      { name: 'server-b', role: 'server', members: 3 },
      { name: 'client-1', role: 'client', servers: ['10.0.0.11:4647', '10.0.0.12:4647'] },
    ],
  });
  const token = tempFile('agent-token', sim.readToken);
  const t = (name: string, extra = '') =>
    `  - { name: ${name}, address: "${sim.agent(name).url}", token_file: ${token}, schedule: "${NEVER}", host: true${extra} }\n`;
  vigil = await startTestDaemon(`agents:\n${t('server-a')}${t('server-b', ', expected_servers: 5')}${t('client-1', ', expected_servers: 3')}`);
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});

describe('a follower tells whether its region has a leader', () => {
  it('knows the leader and heard from it recently', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('scheduler_agent_raft_leader', { target: 'server-b' }))).toBe(0);
    expect(m.get(series('scheduler_agent_raft_leader_known', { target: 'server-b' }))).toBe(1);
    expect(m.get(series('scheduler_agent_raft_last_contact_seconds', { target: 'server-b' }))).toBeLessThan(10);
    expect(m.get(series('scheduler_agent_raft_leader', { target: 'server-a' }))).toBe(1);
    expect(m.get(series('scheduler_agent_raft_leader_known', { target: 'server-a' }))).toBe(1);
    // A client has no raft: the series is absent, not 0.
    expect(m.has(series('scheduler_agent_raft_leader_known', { target: 'client-1' }))).toBe(false);
  });

  it('knows no leader during an election, with a growing last contact', async () => {
    expect((await admin(sim, 'server-b', 'raft', { state: 'Candidate', last_contact: '12.5s' })).status).toBe(200);
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(series('scheduler_agent_raft_leader_known', { target: 'server-b' }))).toBe(0);
    expect(m.get(series('scheduler_agent_raft_last_contact_seconds', { target: 'server-b' }))).toBe(12.5);
    await admin(sim, 'server-b', 'raft', undefined, 'DELETE');
  });

  it('reports an applied index behind the commit index', async () => {
    await admin(sim, 'server-a', 'raft', { commit_index: '90000', applied_index: '85000' });
    await vigil.collect();
    const m = await vigil.metrics();
    const lag =
      m.get(series('scheduler_agent_raft_commit_index', { target: 'server-a' }))! -
      m.get(series('scheduler_agent_raft_applied_index', { target: 'server-a' }))!;
    expect(lag).toBe(5000);
    await admin(sim, 'server-a', 'raft', undefined, 'DELETE');
  });
});

describe('gossip health and host disks on demand', () => {
  it('exports a gossip health score above 0', async () => {
    expect((await admin(sim, 'server-a', 'serf', { health_score: '3' })).status).toBe(200);
    await vigil.collect();
    expect((await vigil.metrics()).get(series('scheduler_agent_serf_health_score', { target: 'server-a' }))).toBe(3);
    await admin(sim, 'server-a', 'serf', undefined, 'DELETE');
    await vigil.collect();
    expect((await vigil.metrics()).get(series('scheduler_agent_serf_health_score', { target: 'server-a' }))).toBe(0);
  });

  it('exports a disk filled on demand, in bytes', async () => {
    expect((await admin(sim, 'client-1', 'host/disk', { mount: '/', used_mb: 50_000 })).status).toBe(200);
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(series('scheduler_agent_host_disk_used_bytes', { target: 'client-1', mount: '/' }))).toBe(50_000 * MiB);
    expect(m.get(series('scheduler_agent_host_disk_size_bytes', { target: 'client-1', mount: '/' }))).toBe(51_200 * MiB);
    await admin(sim, 'client-1', 'host/disk', undefined, 'DELETE');
  });
});

describe('expected servers per target', () => {
  it('exports the configured expectation only where it is set', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('scheduler_agent_expected_servers', { target: 'client-1' }))).toBe(3);
    expect(m.get(series('scheduler_agent_expected_servers', { target: 'server-b' }))).toBe(5);
    expect(m.has(series('scheduler_agent_expected_servers', { target: 'server-a' }))).toBe(false);
    expect(m.get(series('scheduler_agent_known_servers', { target: 'client-1' }))).toBe(2);
  });
});
