import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentScenario, type AgentSimulator } from '../../simulators/agent/index.js';
import { admin } from '../helpers/agent-sim.js';
import { waitFor } from '../helpers/wait.js';

const AGENT_ONLY = 'agent-read-only-token';

/** A region of three raft servers (one agent listening, two more in its pool), its client, and a region without servers. */
const scenario: AgentScenario = {
  agents: [
    { name: 'server-1', role: 'server', members: 3 },
    { name: 'client-1', role: 'client' },
    { name: 'lonely', role: 'client', region: 'far', servers: [] },
  ],
  acl: { enabled: true, tokens: [{ secret: AGENT_ONLY, policies: ['agent:read', 'node:read'] }] },
};

interface Health {
  Healthy: boolean;
  FailureTolerance: number;
  Leader?: string;
  Voters?: string[];
  Servers: Array<{ ID: string; Name: string; SerfStatus: string; Leader: boolean; Healthy: boolean; Voter: boolean; LastIndex: number; LastContact: string }>;
}

describe('GET /v1/operator/autopilot/health', () => {
  let sim: AgentSimulator;
  beforeEach(async () => {
    sim = await startAgentSimulator(scenario);
  });
  afterEach(async () => {
    await sim.close();
  });

  const get = (agent: string, token = sim.readToken) =>
    fetch(`${sim.agent(agent).url}/v1/operator/autopilot/health`, { headers: { 'X-Scheduler-Token': token } });
  const health = async (agent = 'server-1', status = 200): Promise<Health> => {
    const res = await get(agent);
    expect(res.status).toBe(status);
    return (await res.json()) as Health;
  };

  it('answers the region: three healthy voters, one failure tolerated, the first server leading, on a server and through a client', async () => {
    const h = await health();
    expect(h).toMatchObject({ Healthy: true, FailureTolerance: 1 });
    expect(h.Servers).toHaveLength(3);
    expect(h.Servers.every((s) => s.Healthy && s.Voter && s.SerfStatus === 'alive')).toBe(true);
    expect(h.Servers.filter((s) => s.Leader).map((s) => s.Name)).toEqual(['server-1.global']);
    expect(h.Leader).toBe(h.Servers[0]?.ID);
    expect(h.Voters).toHaveLength(3);
    expect((await health('client-1')).Servers.map((s) => s.Name)).toEqual(h.Servers.map((s) => s.Name));
  });

  it('needs operator:read (403), and a client with no server to forward to answers 500 "no servers"', async () => {
    expect((await get('server-1', AGENT_ONLY)).status).toBe(403);
    const res = await get('lonely');
    expect([res.status, await res.text()]).toEqual([500, 'no servers']);
  });

  it('kill a server: 429 with the body, the server failed and unhealthy, no failure tolerated; a killed leader hands over', async () => {
    const names = (await health()).Servers.map((s) => s.Name);
    expect((await admin(sim, 'server-1', `autopilot/servers/${names[0]}`, { killed: true })).status).toBe(200);
    const h = await health('server-1', 429);
    expect(h).toMatchObject({ Healthy: false, FailureTolerance: 0 });
    expect(h.Servers[0]).toMatchObject({ SerfStatus: 'failed', Healthy: false, Leader: false });
    expect(h.Servers.filter((s) => s.Leader).map((s) => s.Name)).toEqual([names[1]]);
    expect((await admin(sim, 'server-1', 'autopilot', undefined, 'DELETE')).status).toBe(204);
    expect((await health()).Healthy).toBe(true);
  });

  it('lag a voter: its index trails the leader by the lag, and past 250 entries it is unhealthy', async () => {
    const name = (await health()).Servers[2]?.Name ?? '';
    await admin(sim, 'server-1', `autopilot/servers/${name}`, { lag: 5000 });
    const h = await health('server-1', 429);
    const [leader, , lagging] = h.Servers;
    expect((leader?.LastIndex ?? 0) - (lagging?.LastIndex ?? 0)).toBe(5000);
    expect(lagging?.Healthy).toBe(false);
    expect(h.FailureTolerance).toBe(0);
  });

  it('flap the leader: leadership moves every period, and stays put once stopped', async () => {
    const PERIOD_MS = 20;
    const leader = async () => (await health()).Servers.find((s) => s.Leader)?.Name;
    const first = await leader();
    await admin(sim, 'server-1', 'autopilot/flap', { every_ms: PERIOD_MS });
    const seen = new Set<string | undefined>([first]);
    await waitFor('every server to lead in turn', async () => (seen.add(await leader()).size === 3 ? true : undefined), 5_000, { everyMs: 5 });
    expect(seen).toEqual(new Set((await health()).Servers.map((s) => s.Name)));
    await admin(sim, 'server-1', 'autopilot/flap', { every_ms: null });
    const stopped = await leader();
    // Staying put is a claim about time passing, with nothing to wait for. The leader is read until
    // the reads span two periods with less than a period between any two (a stall starts them again),
    // so a flap still running would move it between two reads: the simulator runs on this process's
    // clock. One read after a fixed sleep would not do: three periods on, a flap is back where it began.
    const leaders = new Set([stopped]);
    let runFrom = performance.now();
    let lastStart = runFrom;
    await waitFor(
      'reads spanning two flap periods',
      async () => {
        const start = performance.now();
        leaders.add(await leader());
        const end = performance.now();
        if (end - lastStart >= PERIOD_MS) runFrom = end;
        lastStart = start;
        return start - runFrom >= 2 * PERIOD_MS ? true : undefined;
      },
      5_000,
      { everyMs: 5 },
    );
    expect(leaders).toEqual(new Set([stopped]));
  });

  it('refuses bad fault bodies with the reason, and names the servers it knows', async () => {
    const bad = await admin(sim, 'server-1', 'autopilot/flap', { every_ms: 'often' });
    expect(bad.status).toBe(400);
    const unknown = await admin(sim, 'server-1', 'autopilot/servers/nobody', { killed: true });
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(await unknown.json())).toContain('server-1');
  });
});
