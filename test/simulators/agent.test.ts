import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_NOT_SERVER, demoAgentScenario, startAgentSimulator, type AgentScenario, type AgentSimulator } from '../../simulators/agent/index.js';
import { admin } from '../helpers/agent-sim.js';
import { waitFor } from '../helpers/wait.js';

const READ_AGENT_ONLY = 'agent-read-only-token';
const WRITE_AGENT_ONLY = 'agent-write-only-token';

/** Two servers (the first leads), a client and an agent in both modes, behind ACLs. */
const cluster: AgentScenario = {
  agents: [
    { name: 'server-1', role: 'server', members: 5 },
    { name: 'server-2', role: 'server', datacenter: 'dc2' },
    { name: 'client-1', role: 'client', allocations: 4, servers: ['10.0.0.12:4647', '10.0.0.11:4647'] },
    { name: 'both-1', role: 'both', region: 'eu' },
  ],
  acl: {
    enabled: true,
    tokens: [
      { secret: READ_AGENT_ONLY, policies: ['agent:read'] },
      { secret: WRITE_AGENT_ONLY, policies: ['agent:write'] },
    ],
  },
};

/** Starts a fresh simulator before each test of the enclosing describe and closes it after. */
function useSimulator(scenario: AgentScenario = cluster): () => AgentSimulator {
  let sim: AgentSimulator | undefined;
  beforeEach(async () => {
    sim = await startAgentSimulator(scenario);
  });
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });
  return () => {
    if (!sim) throw new Error('simulator not started');
    return sim;
  };
}

interface Call {
  token?: string;
  method?: string;
}

async function call(sim: AgentSimulator, agent: string, path: string, opts: Call = {}): Promise<Response> {
  const headers: Record<string, string> = opts.token ? { 'X-Scheduler-Token': opts.token } : {};
  return fetch(`${sim.agent(agent).url}${path}`, { method: opts.method ?? 'GET', headers });
}

async function json<T>(sim: AgentSimulator, agent: string, path: string, token = sim.managementToken): Promise<T> {
  const res = await call(sim, agent, path, { token });
  expect(res.status, `${agent} ${path}`).toBe(200);
  return (await res.json()) as T;
}

interface Member {
  Name: string;
  Addr: string;
  Port: number;
  Tags: Record<string, string> | null;
  Status: string;
}
interface Members {
  ServerName: string;
  ServerRegion: string;
  ServerDC: string;
  Members: Member[];
}
type Stats = Record<string, Record<string, unknown>>;
interface Self {
  config: Record<string, unknown>;
  member: Member;
  stats: Stats;
}

const members = (sim: AgentSimulator, agent = 'server-1'): Promise<Members> => json<Members>(sim, agent, '/v1/agent/members');
const stats = async (sim: AgentSimulator, agent: string): Promise<Stats> => (await json<Self>(sim, agent, '/v1/agent/self')).stats;

describe('GET /v1/agent/health', () => {
  const sim = useSimulator();

  it('reports only the server part on a server-only agent', async () => {
    const res = await call(sim(), 'server-1', '/v1/agent/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ server: { ok: true, message: 'ok' } });
  });

  it('reports only the client part on a client-only agent', async () => {
    expect(await json(sim(), 'client-1', '/v1/agent/health')).toEqual({ client: { ok: true, message: 'ok' } });
  });

  it('reports both parts on an agent in both modes', async () => {
    expect(await json(sim(), 'both-1', '/v1/agent/health')).toEqual({
      client: { ok: true, message: 'ok' },
      server: { ok: true, message: 'ok' },
    });
  });

  it('answers 500 with the same JSON shape when unhealthy, and 200 again when healed', async () => {
    await admin(sim(), 'both-1', 'health', { server: { ok: false, message: 'no leader' } });
    const res = await call(sim(), 'both-1', '/v1/agent/health');
    expect(res.status).toBe(500);
    expect(JSON.parse(await res.text())).toEqual({
      client: { ok: true, message: 'ok' },
      server: { ok: false, message: 'no leader' },
    });
    await admin(sim(), 'both-1', 'health', { server: { ok: true } });
    expect((await call(sim(), 'both-1', '/v1/agent/health')).status).toBe(200);
  });

  it('turns a client unhealthy when it knows no servers, like the real agent', async () => {
    expect((await admin(sim(), 'client-1', 'servers/clear')).status).toBe(200);
    const res = await call(sim(), 'client-1', '/v1/agent/health');
    expect(res.status).toBe(500);
    expect(JSON.parse(await res.text())).toEqual({ client: { ok: false, message: 'no known servers' } });
  });
});

describe('GET /v1/agent/members', () => {
  const sim = useSimulator();

  it('lists the pool with the local server first and the scenario peers in it', async () => {
    const body = await members(sim());
    expect(body).toMatchObject({ ServerName: 'server-1', ServerRegion: 'global', ServerDC: 'dc1' });
    expect(body.Members).toHaveLength(5);
    expect(body.Members.map((m) => m.Name).slice(0, 2)).toEqual(['server-1.global', 'server-2.global']);
    expect(new Set(body.Members.map((m) => m.Name)).size).toBe(5);
    for (const m of body.Members) {
      expect(m).toMatchObject({ Port: 4648, Status: 'alive', ProtocolMin: 1, ProtocolMax: 5, DelegateCur: 4 });
      expect(m.Addr).toMatch(/^10\.\d+\.\d+\.\d+$/);
      expect(m.Tags).toMatchObject({ role: 'nomad', region: 'global', build: '1.9.3', port: '4647', expect: '3' });
    }
    expect(body.Members[1]?.Tags?.dc).toBe('dc2');
  });

  it('shows the status the admin API sets, any string included', async () => {
    expect((await admin(sim(), 'server-1', 'members/server-2.global', { status: 'failed' })).status).toBe(200);
    expect((await admin(sim(), 'server-1', 'members/server-3', { status: 'leaving' })).status).toBe(200);
    const byName = new Map((await members(sim())).Members.map((m) => [m.Name, m.Status]));
    expect(byName.get('server-2.global')).toBe('failed');
    expect(byName.get('server-3.global')).toBe('leaving');
    expect(byName.get('server-1.global')).toBe('alive');
    expect((await admin(sim(), 'server-1', 'members/nobody', { status: 'failed' })).status).toBe(404);
  });

  it('resizes the pool and keeps the local member', async () => {
    await admin(sim(), 'server-1', 'members', { count: 9 });
    expect((await members(sim())).Members).toHaveLength(9);
    await admin(sim(), 'server-1', 'members', { count: 1 });
    expect((await members(sim())).Members.map((m) => m.Name)).toEqual(['server-1.global']);
  });

  it('moves a failed member along the pool at each answer while the churn fault is on, and stops when it is off', async () => {
    await admin(sim(), 'server-1', 'faults', { churn: true });
    const failed = async () => (await members(sim())).Members.flatMap((m, i) => (m.Status === 'failed' ? [i] : []));
    // five members: the local one (0) never fails; the others fail in turn, one at a time
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(await failed());
    expect(seen).toEqual([[1], [2], [3], [4], [1]]);
    // other endpoints leave the pool as it is
    await call(sim(), 'server-1', '/v1/agent/self', { token: sim().managementToken });
    await admin(sim(), 'server-1', 'faults', { churn: false });
    expect(await failed()).toEqual([1]);
  });

  it('fails on a client-only agent with a 500 text error', async () => {
    const res = await call(sim(), 'client-1', '/v1/agent/members', { token: sim().managementToken });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(CLIENT_NOT_SERVER);
  });

  it('needs node:read', async () => {
    expect((await call(sim(), 'server-1', '/v1/agent/members', { token: READ_AGENT_ONLY })).status).toBe(403);
    expect((await call(sim(), 'server-1', '/v1/agent/members', { token: sim().readToken })).status).toBe(200);
  });
});

describe('GET /v1/nodes', () => {
  const sim = useSimulator({ ...cluster, nodes: { count: 10, pools: ['web', 'batch'], datacenters: ['dc1', 'dc2'] } });
  interface Node {
    ID: string;
    Name: string;
    NodePool?: string;
    Status: string;
    Drain: boolean;
    SchedulingEligibility: string;
  }
  /** Every page of the listing from one agent: the nodes, and the per_page/next_token the pages took. */
  async function listing(agent: string, perPage: number): Promise<{ nodes: Node[]; pages: number }> {
    const nodes: Node[] = [];
    let pages = 0;
    for (let token: string | null = ''; token !== null; pages++) {
      const res = await call(sim(), agent, `/v1/nodes?per_page=${perPage}${token ? `&next_token=${token}` : ''}`, { token: sim().readToken });
      expect(res.status).toBe(200);
      const page = (await res.json()) as Node[];
      expect(page.length).toBeLessThanOrEqual(perPage);
      nodes.push(...page);
      token = res.headers.get('x-scheduler-nexttoken');
    }
    return { nodes, pages };
  }

  it('pages the region’s nodes in ID order, per_page at a time, the next token in its header', async () => {
    const { nodes, pages } = await listing('server-1', 3);
    expect(pages).toBe(4);
    expect(nodes.map((n) => n.ID)).toEqual(nodes.map((n) => n.ID).sort());
    expect(new Set(nodes.map((n) => n.Name)).size).toBe(10);
    expect(new Set(nodes.map((n) => n.NodePool))).toEqual(new Set(['web', 'batch']));
  });

  it('answers the same fleet from every agent of the region, and its own to another region', async () => {
    await admin(sim(), 'server-1', 'nodes/down', { pool: 'web', share: 0.4 });
    const down = (n: Node[]) => n.filter((x) => x.Status === 'down').map((x) => x.Name);
    expect(down((await listing('client-1', 100)).nodes)).toEqual(down((await listing('server-2', 100)).nodes));
    expect(down((await listing('client-1', 100)).nodes)).toHaveLength(2);
    expect(down((await listing('both-1', 100)).nodes)).toEqual([]);
  });

  it('takes nodes down or disconnected, drains one (ineligible), and resets', async () => {
    expect(await (await admin(sim(), 'server-1', 'nodes/down', { count: 3, status: 'disconnected' })).json()).toMatchObject({ changed: 3, disconnected: 3 });
    expect((await admin(sim(), 'server-1', 'nodes/client-1.global', { drain: true })).status).toBe(200);
    const nodes = (await listing('server-1', 100)).nodes;
    expect(nodes.filter((n) => n.Status === 'disconnected')).toHaveLength(3);
    expect(nodes.find((n) => n.Name === 'client-1.global')).toMatchObject({ Drain: true, SchedulingEligibility: 'ineligible' });
    await admin(sim(), 'server-1', 'nodes', undefined, 'DELETE');
    expect((await listing('server-1', 100)).nodes.every((n) => n.Status === 'ready' && !n.Drain)).toBe(true);
    expect((await admin(sim(), 'server-1', 'nodes/down', { status: 'gone', count: 1 })).status).toBe(400);
    expect((await admin(sim(), 'server-1', 'nodes/nobody', { drain: true })).status).toBe(404);
  });

  it('needs node:read', async () => {
    expect((await call(sim(), 'server-1', '/v1/nodes', { token: READ_AGENT_ONLY })).status).toBe(403);
  });
});

describe('GET /v1/nodes from an agent of the 0.x releases', () => {
  it('knows no node pools and no paging: every node in one answer', async () => {
    const sim = await startAgentSimulator({ agents: [{ name: 's', role: 'server' }], nodes: { count: 5 } }, { profile: '0.x' });
    try {
      const res = await fetch(`${sim.agent('s').url}/v1/nodes?per_page=2`);
      const nodes = (await res.json()) as Array<Record<string, unknown>>;
      expect(nodes).toHaveLength(5);
      expect(nodes.some((n) => 'NodePool' in n)).toBe(false);
      expect(res.headers.get('x-scheduler-nexttoken')).toBeNull();
    } finally {
      await sim.close();
    }
  });
});

describe('POST /v1/agent/force-leave', () => {
  const sim = useSimulator();
  const forceLeave = (node: string, token = sim().managementToken, agent = 'server-1'): Promise<Response> =>
    call(sim(), agent, `/v1/agent/force-leave?node=${encodeURIComponent(node)}`, { method: 'POST', token });

  it('moves a failed member to left, by pool name or bare node name', async () => {
    await admin(sim(), 'server-1', 'members/server-2', { status: 'failed' });
    await admin(sim(), 'server-1', 'members/server-3', { status: 'failed' });
    const a = await forceLeave('server-2.global');
    expect(a.status).toBe(200);
    expect(await a.text()).toBe('');
    expect((await forceLeave('server-3')).status).toBe(200);
    const byName = new Map((await members(sim())).Members.map((m) => [m.Name, m.Status]));
    expect(byName.get('server-2.global')).toBe('left');
    expect(byName.get('server-3.global')).toBe('left');
  });

  it('leaves an alive member alone', async () => {
    expect((await forceLeave('server-2')).status).toBe(200);
    expect((await members(sim())).Members[1]?.Status).toBe('alive');
  });

  it('answers an error for an unknown node or a missing one', async () => {
    const unknown = await forceLeave('no-such-node');
    expect(unknown.status).toBe(500);
    expect(await unknown.text()).toContain('no-such-node');
    expect((await call(sim(), 'server-1', '/v1/agent/force-leave', { method: 'POST', token: sim().managementToken })).status).toBe(400);
  });

  it('needs agent:write and a server', async () => {
    await admin(sim(), 'server-1', 'members/server-2', { status: 'failed' });
    expect((await forceLeave('server-2', sim().readToken)).status).toBe(403);
    expect((await members(sim())).Members[1]?.Status).toBe('failed');
    expect((await forceLeave('server-2', WRITE_AGENT_ONLY)).status).toBe(200);
    expect((await forceLeave('server-2', sim().managementToken, 'client-1')).status).toBe(501);
  });
});

describe('/v1/agent/servers', () => {
  const sim = useSimulator();

  it('GET lists the client’s known servers as a sorted array of ip:port', async () => {
    expect(await json(sim(), 'client-1', '/v1/agent/servers')).toEqual(['10.0.0.11:4647', '10.0.0.12:4647']);
  });

  it('defaults a client’s servers to its region’s servers', async () => {
    const servers = await json<string[]>(sim(), 'both-1', '/v1/agent/servers');
    expect(servers).toHaveLength(3);
    expect(servers).toContain('10.0.0.14:4647');
  });

  it('POST replaces the list (address repeated) and answers an empty 200', async () => {
    const res = await call(sim(), 'client-1', '/v1/agent/servers?address=10.1.0.9:4647&address=10.1.0.8:4647', {
      method: 'POST',
      token: WRITE_AGENT_ONLY,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(await json(sim(), 'client-1', '/v1/agent/servers')).toEqual(['10.1.0.8:4647', '10.1.0.9:4647']);
    expect((await stats(sim(), 'client-1')).client?.known_servers).toBe('10.1.0.9:4647,10.1.0.8:4647');
  });

  it('POST needs an address and agent:write', async () => {
    const post = (q: string, token: string): Promise<Response> => call(sim(), 'client-1', `/v1/agent/servers${q}`, { method: 'POST', token });
    expect((await post('', sim().managementToken)).status).toBe(400);
    expect((await post('?address=not-an-address', sim().managementToken)).status).toBe(400);
    expect((await post('?address=10.1.0.9:4647', sim().readToken)).status).toBe(403);
    expect(await json(sim(), 'client-1', '/v1/agent/servers')).toHaveLength(2);
  });

  it('answers 501 with an error body on a server-only agent', async () => {
    const res = await call(sim(), 'server-1', '/v1/agent/servers', { token: sim().managementToken });
    expect(res.status).toBe(501);
    expect(await res.text()).toBe('Invalid method');
  });

  it('answers [] after the admin API clears them', async () => {
    await admin(sim(), 'client-1', 'servers/clear');
    expect(await json(sim(), 'client-1', '/v1/agent/servers')).toEqual([]);
  });
});

describe('GET /v1/agent/self', () => {
  const sim = useSimulator();

  it('renders every stats value as a string, in every mode', async () => {
    for (const agent of ['server-1', 'client-1', 'both-1']) {
      const s = await stats(sim(), agent);
      expect(Object.keys(s).length).toBeGreaterThan(0);
      for (const [section, values] of Object.entries(s)) {
        for (const [k, v] of Object.entries(values)) expect(typeof v, `${agent} ${section}.${k}`).toBe('string');
      }
    }
  });

  it('has the sections of the agent’s mode', async () => {
    expect(Object.keys(await stats(sim(), 'server-1')).sort()).toEqual(['nomad', 'raft', 'runtime', 'serf']);
    expect(Object.keys(await stats(sim(), 'client-1')).sort()).toEqual(['client', 'runtime']);
    expect(Object.keys(await stats(sim(), 'both-1')).sort()).toEqual(['client', 'nomad', 'raft', 'runtime', 'serf']);
  });

  it('carries the config keys of the spec and the agent’s own member', async () => {
    const self = await json<Self>(sim(), 'server-2', '/v1/agent/self');
    for (const key of [
      'Addresses',
      'AdvertiseAddrs',
      'BindAddr',
      'Client',
      'DataDir',
      'Datacenter',
      'DevMode',
      'DisableAnonymousSignature',
      'DisableUpdateCheck',
      'EnableDebug',
      'EnableSyslog',
      'Files',
      'HTTPAPIResponseHeaders',
      'LeaveOnInt',
      'LeaveOnTerm',
      'LogLevel',
      'NodeName',
      'Ports',
      'Region',
      'Revision',
      'Server',
      'SyslogFacility',
      'TLSConfig',
      'Telemetry',
      'Version',
      'VersionPrerelease',
      'Consul',
      'Vault',
    ]) {
      expect(self.config, key).toHaveProperty(key);
    }
    expect(self.config).toMatchObject({ NodeName: 'server-2', Region: 'global', Datacenter: 'dc2', Version: { Version: '1.9.3' } });
    expect(self.member.Name).toBe('server-2.global');
    const client = await json<Self>(sim(), 'client-1', '/v1/agent/self');
    expect(client.member).toMatchObject({ Name: '', Status: 'none' });
  });

  it('counts serf members, failed and left from the member statuses', async () => {
    await admin(sim(), 'server-1', 'members/server-2', { status: 'failed' });
    await admin(sim(), 'server-1', 'members/server-3', { status: 'failed' });
    await admin(sim(), 'server-1', 'members/server-4', { status: 'left' });
    const before = await stats(sim(), 'server-1');
    expect(before.serf).toMatchObject({ members: '5', failed: '2', left: '1' });
    expect(before.raft?.num_peers).toBe('3');
    await call(sim(), 'server-1', '/v1/agent/force-leave?node=server-2', { method: 'POST', token: sim().managementToken });
    await admin(sim(), 'server-1', 'members', { count: 7 });
    const after = await stats(sim(), 'server-1');
    expect(after.serf).toMatchObject({ members: '7', failed: '1', left: '2' });
    expect(Number(after.serf?.member_time)).toBeGreaterThan(Number(before.serf?.member_time));
  });

  it('reports allocations and known servers of the client', async () => {
    expect((await stats(sim(), 'client-1')).client).toMatchObject({
      num_allocations: '4',
      known_servers: '10.0.0.12:4647,10.0.0.11:4647',
    });
    await admin(sim(), 'client-1', 'allocations', { count: 11 });
    expect((await stats(sim(), 'client-1')).client?.num_allocations).toBe('11');
  });

  it('advances the raft indexes over time', async () => {
    const first = Number((await stats(sim(), 'server-1')).raft?.commit_index);
    const second = await waitFor('a commit index past the first', async () => {
      const raft = (await stats(sim(), 'server-1')).raft;
      return Number(raft?.commit_index) > first ? raft : undefined;
    });
    expect(second?.applied_index).toBe(second?.commit_index);
  });

  it('leads with the first server, follows with the others, and takes raft overrides', async () => {
    expect((await stats(sim(), 'server-1')).raft).toMatchObject({ state: 'Leader', last_contact: '0' });
    expect((await stats(sim(), 'server-1')).nomad).toMatchObject({ leader: 'true', leader_addr: '10.0.0.11:4647' });
    const follower = await stats(sim(), 'server-2');
    expect(follower.raft?.state).toBe('Follower');
    expect(follower.raft?.last_contact).toMatch(/^\d+(\.\d+)?ms$/);
    expect(follower.nomad).toMatchObject({ leader: 'false', leader_addr: '10.0.0.11:4647' });
    await admin(sim(), 'server-1', 'raft', { state: 'Follower', last_contact: 'never' });
    const s = await stats(sim(), 'server-1');
    expect(s.raft).toMatchObject({ state: 'Follower', last_contact: 'never' });
    expect(s.nomad?.leader).toBe('false');
  });

  it('needs agent:read (agent:write includes it)', async () => {
    expect((await call(sim(), 'server-1', '/v1/agent/self', { token: READ_AGENT_ONLY })).status).toBe(200);
    expect((await call(sim(), 'server-1', '/v1/agent/self', { token: WRITE_AGENT_ONLY })).status).toBe(200);
    expect((await call(sim(), 'server-1', '/v1/agent/self')).status).toBe(403);
  });
});

describe('GET /v1/agent/host', () => {
  const sim = useSimulator();
  interface Host {
    AgentID: string;
    HostData: { OS: string; Network: unknown[]; Environment: Record<string, string>; Disk: Record<string, { DiskMB: number; UsedMB: number }>; Hosts: string };
  }

  it('reports disks in whole MB and redacts the known secrets', async () => {
    const host = await json<Host>(sim(), 'server-1', '/v1/agent/host');
    expect(host.AgentID).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(host.HostData.Disk)).toEqual(['/', '/var/lib/nomad']);
    for (const d of Object.values(host.HostData.Disk)) {
      expect(Number.isInteger(d.DiskMB) && Number.isInteger(d.UsedMB)).toBe(true);
      expect(d.UsedMB).toBeGreaterThan(0);
      expect(d.UsedMB).toBeLessThan(d.DiskMB);
      expect(d.DiskMB).toBeLessThan(10_000_000);
    }
    expect(host.HostData.Environment.NOMAD_TOKEN).toBe('<redacted>');
    expect(host.HostData.Network.length).toBeGreaterThan(0);
  });

  it('answers for another agent given its node name', async () => {
    const host = await json<Host>(sim(), 'server-1', '/v1/agent/host?node_id=client-1');
    expect(host.HostData.Hosts).toContain('client-1');
    expect((await call(sim(), 'server-1', '/v1/agent/host?node_id=ghost', { token: sim().readToken })).status).toBe(500);
  });
});

describe('POST /v1/agent/join', () => {
  const sim = useSimulator();

  it('counts the addresses that look like ip:port and adds them as alive members', async () => {
    const res = await call(sim(), 'server-1', '/v1/agent/join?address=10.9.0.1:4648&address=10.9.0.2:4648&address=nonsense', {
      method: 'POST',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ error: '', num_joined: 2 });
    const body = await members(sim());
    expect(body.Members).toHaveLength(7);
    expect(body.Members.filter((m) => m.Addr.startsWith('10.9.0.')).every((m) => m.Status === 'alive')).toBe(true);
  });

  it('revives a member already at the address instead of adding one', async () => {
    const failed = (await members(sim())).Members[2];
    await admin(sim(), 'server-1', `members/${failed?.Name ?? ''}`, { status: 'failed' });
    const res = await call(sim(), 'server-1', `/v1/agent/join?address=${failed?.Addr ?? ''}:4648`, { method: 'PUT' });
    expect(await res.json()).toEqual({ error: '', num_joined: 1 });
    const after = await members(sim());
    expect(after.Members).toHaveLength(5);
    expect(after.Members[2]?.Status).toBe('alive');
  });

  it('reports an error when nothing could be joined, and needs an address', async () => {
    const res = await call(sim(), 'server-1', '/v1/agent/join?address=bogus', { method: 'POST' });
    const body = (await res.json()) as { error: string; num_joined: number };
    expect(body.num_joined).toBe(0);
    expect(body.error).toContain('bogus');
    expect((await call(sim(), 'server-1', '/v1/agent/join', { method: 'POST' })).status).toBe(400);
    expect((await call(sim(), 'client-1', '/v1/agent/join?address=10.9.0.1:4648', { method: 'POST' })).status).toBe(501);
  });
});

describe('ACL enforcement', () => {
  const sim = useSimulator();

  it('answers 403 text/plain "Permission denied" for a wrong, missing or too weak token', async () => {
    for (const token of ['not-a-token', undefined, READ_AGENT_ONLY]) {
      const res = await call(sim(), 'server-1', '/v1/agent/members', token ? { token } : {});
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('Permission denied');
    }
  });

  it('leaves health and join open', async () => {
    expect((await call(sim(), 'client-1', '/v1/agent/health', { token: 'not-a-token' })).status).toBe(200);
    expect((await call(sim(), 'server-1', '/v1/agent/join?address=10.9.0.1:4648', { method: 'POST' })).status).toBe(200);
  });

  it('answers 404 on an unknown path and 405 on a wrong method', async () => {
    expect((await call(sim(), 'server-1', '/v1/agent/nope')).status).toBe(404);
    expect((await call(sim(), 'server-1', '/v1/agent/self', { method: 'DELETE' })).status).toBe(405);
  });

  it('guards monitor and pprof, which are not simulated', async () => {
    expect((await call(sim(), 'server-1', '/v1/agent/monitor')).status).toBe(403);
    expect((await call(sim(), 'server-1', '/v1/agent/monitor', { token: sim().readToken })).status).toBe(501);
    expect((await call(sim(), 'server-1', '/v1/agent/pprof/profile', { token: sim().readToken })).status).toBe(403);
    expect((await call(sim(), 'server-1', '/v1/agent/pprof/profile', { token: sim().managementToken })).status).toBe(501);
  });

  describe('with ACLs off', () => {
    const open = useSimulator({ agents: [{ name: 'server-1', role: 'both' }] });

    it('accepts any request, with or without a token', async () => {
      expect((await call(open(), 'server-1', '/v1/agent/members')).status).toBe(200);
      expect((await call(open(), 'server-1', '/v1/agent/self', { token: 'whatever' })).status).toBe(200);
      expect((await call(open(), 'server-1', '/v1/agent/servers?address=10.0.0.1:4647', { method: 'POST' })).status).toBe(200);
    });
  });
});

describe('faults', () => {
  const sim = useSimulator();

  it('hangs until the client gives up, while the admin API still answers', async () => {
    await admin(sim(), 'server-1', 'faults', { hang: true });
    await expect(fetch(`${sim().agent('server-1').url}/v1/agent/health`, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect((await admin(sim(), 'server-1', 'state', undefined, 'GET')).status).toBe(200);
    await admin(sim(), 'server-1', 'faults', undefined, 'DELETE');
    expect((await call(sim(), 'server-1', '/v1/agent/health')).status).toBe(200);
  });

  it('answers garbage that is not JSON', async () => {
    await admin(sim(), 'client-1', 'faults', { garbage: true });
    const res = await call(sim(), 'client-1', '/v1/agent/health');
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow();
  });

  it('varies every answer: each one differs from the last in its bytes, and stays the same answer', async () => {
    const text = async () => (await call(sim(), 'server-1', '/v1/agent/members', { token: sim().managementToken })).text();
    expect(await text()).toBe(await text());
    await admin(sim(), 'server-1', 'faults', { vary: true });
    const [a, b] = [await text(), await text()];
    expect(a).not.toBe(b);
    const { sim_serial: _a, ...first } = JSON.parse(a) as Record<string, unknown>;
    const { sim_serial: _b, ...second } = JSON.parse(b) as Record<string, unknown>;
    expect(first).toEqual(second);
    expect(first.Members).toHaveLength(5);
    await admin(sim(), 'server-1', 'faults', undefined, 'DELETE');
  });

  it("varies a listing's page in its first item, and leaves a list of strings as it is", async () => {
    const page = async () => (await call(sim(), 'server-1', '/v1/nodes', { token: sim().managementToken })).text();
    const servers = async () => (await call(sim(), 'client-1', '/v1/agent/servers', { token: sim().managementToken })).text();
    const [steadyServers, steadyPage] = [await servers(), await page()];
    await admin(sim(), 'server-1', 'faults', { vary: true });
    await admin(sim(), 'client-1', 'faults', { vary: true });
    const [a, b] = [await page(), await page()];
    expect(a).not.toBe(b);
    const strip = (text: string) => (JSON.parse(text) as Array<Record<string, unknown>>).map(({ sim_serial: _s, ...node }) => node);
    expect(strip(a)).toEqual(JSON.parse(steadyPage));
    expect(strip(b)).toEqual(JSON.parse(steadyPage));
    expect(await servers()).toBe(steadyServers);
    await admin(sim(), 'server-1', 'faults', undefined, 'DELETE');
    await admin(sim(), 'client-1', 'faults', undefined, 'DELETE');
  });

  it('answers a fixed status a given number of times, on one agent only', async () => {
    await admin(sim(), 'server-1', 'faults', { status: { code: 503, body: 'overloaded', times: 1 } });
    expect((await call(sim(), 'client-1', '/v1/agent/health')).status).toBe(200);
    expect((await call(sim(), 'server-1', '/v1/agent/health')).status).toBe(503);
    expect((await call(sim(), 'server-1', '/v1/agent/health')).status).toBe(200);
  });
});

describe('large gossip pool', () => {
  const sim = useSimulator({ agents: [{ name: 'server-1', role: 'server', members: 5_000 }] });

  // How fast it answers is measured by bench/timings.ts, not asserted here.
  it('answers /agent/members with 5,000 members, also after a change', async () => {
    for (let i = 0; i < 20; i += 1) expect((await members(sim())).Members).toHaveLength(5_000);
    await admin(sim(), 'server-1', 'members/server-4000', { status: 'failed' });
    const body = await members(sim());
    expect(new Set(body.Members.map((m) => m.Name)).size).toBe(5_000);
    expect(body.Members.find((m) => m.Name === 'server-4000.global')?.Status).toBe('failed');
    expect((await stats(sim(), 'server-1')).serf).toMatchObject({ members: '5000', failed: '1' });
  });
});

describe('scenarios', () => {
  it('runs the demo scenario: a server with six members and a client, behind ACLs', async () => {
    const sim = await startAgentSimulator(demoAgentScenario());
    try {
      expect([...sim.agents.keys()]).toEqual(['server-1', 'client-1']);
      expect((await members(sim)).Members).toHaveLength(6);
      expect((await call(sim, 'client-1', '/v1/agent/servers')).status).toBe(403);
      expect(await json<string[]>(sim, 'client-1', '/v1/agent/servers', sim.readToken)).toHaveLength(3);
    } finally {
      await sim.close();
    }
  });

  it('rejects a scenario that names two agents alike', async () => {
    await expect(
      startAgentSimulator({
        agents: [
          { name: 'a', role: 'server' },
          { name: 'a', role: 'client' },
        ],
      }),
    ).rejects.toThrow(/twice/);
  });

  it('throws for an agent it does not know', async () => {
    const sim = await startAgentSimulator({ agents: [{ name: 'a', role: 'client' }] });
    try {
      expect(() => sim.agent('b')).toThrow();
    } finally {
      await sim.close();
    }
  });
});

describe('main.ts', () => {
  it('prints each agent with its URL and tokens, serves, and exits on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'simulators/agent/main.ts', '--port=0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        lines.push(line);
        if (lines.length === 2) break;
      }
      const [name, url, readToken] = (lines[0] ?? '').split(' ');
      expect(name).toBe('server-1');
      expect(readToken).toMatch(/^read-token=/);
      const res = await fetch(`${url ?? ''}/v1/agent/self`, {
        headers: { 'X-Scheduler-Token': (readToken ?? '').slice('read-token='.length) },
      });
      expect(res.status).toBe(200);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
