import { describe, expect, it } from 'vitest';
import { selfFamilies } from '../../../../src/collectors/agent/self.js';
import { agentSelfResponse } from '../../../../src/collectors/agent/self.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { series, seriesOf } from '../../../helpers/exposition.js';
import { fixture } from '../../../helpers/fixtures.js';
import { parseFailure, renderSamples } from '../../../helpers/render.js';

const parse = (body: unknown) => parseBody(agentSelfResponse, body, 'agent/self');
const samples = (body: unknown) => renderSamples(selfFamilies, parse(body), { target: 'a1' });
const T = { target: 'a1' };
const g = (name: string) => series(`scheduler_agent_${name}`, T);

type Self = { config: Record<string, unknown>; member: unknown; stats: Record<string, Record<string, unknown>> };
const leaderBody = () => fixture('agent/self-server-leader.json') as Self;
/** The leader fixture with some raft stats replaced. */
const withRaft = (raft: Record<string, unknown>) => {
  const b = leaderBody();
  return { ...b, stats: { ...b.stats, raft: { ...b.stats.raft, ...raft } } };
};

describe('GET /v1/agent/self on a server that leads', () => {
  const s = samples(leaderBody());

  it('exports identity from the config (version from the Version object)', () => {
    const info = series('scheduler_agent_info', { ...T, name: 'nomad-server-1', region: 'global', datacenter: 'dc1', version: '1.9.3', server: 'true' });
    expect(s.get(info)).toBe(1);
    expect(seriesOf(s, 'scheduler_agent_info').size).toBe(1);
  });

  it.each([
    ['raft_leader', 1],
    ['raft_peers', 2],
    ['raft_commit_index', 20485],
    ['raft_applied_index', 20484],
    ['raft_last_log_index', 20486],
    ['raft_last_contact_seconds', 0], // "0" on the leader
    ['serf_members', 6],
    ['serf_failed', 1],
    ['serf_left', 1],
    ['serf_health_score', 2],
    ['runtime_goroutines', 144],
  ])('reads scheduler_agent_%s from its string stat as %d', (name, value) => {
    expect(s.get(g(name))).toBe(value);
  });

  it('knows a leader (itself), from leader_addr', () => {
    expect(s.get(g('raft_leader_known'))).toBe(1);
  });

  it('leaves raft_leader_known absent when the agent does not report leader_addr', () => {
    const b = leaderBody();
    const nomad = { ...b.stats.nomad };
    delete nomad.leader_addr;
    expect(samples({ ...b, stats: { ...b.stats, nomad } }).has(g('raft_leader_known'))).toBe(false);
  });

  it('exports no client series on an agent without a client part', () => {
    expect(s.has(g('client_allocations'))).toBe(false);
  });
});

describe('GET /v1/agent/self on a follower that never heard from a leader', () => {
  const s = samples(fixture('agent/self-server-follower.json'));

  it('is not the leader, and last_contact "never" is absent, not 0', () => {
    expect(s.get(g('raft_leader'))).toBe(0);
    expect(s.has(g('raft_last_contact_seconds'))).toBe(false);
    expect(s.get(g('raft_last_log_index'))).toBe(12);
  });

  it('knows no leader: an empty leader_addr is 0, so a single watched follower can tell', () => {
    expect(s.get(g('raft_leader_known'))).toBe(0);
  });

  it.each([
    ['45.2ms', 0.0452],
    ['30s', 30],
    ['1m5s', 65],
  ])('reads last_contact %s as %s seconds', (contact, seconds) => {
    expect(samples(withRaft({ last_contact: contact })).get(g('raft_last_contact_seconds'))).toBeCloseTo(seconds, 9);
  });
});

describe('GET /v1/agent/self on a client-only agent', () => {
  const s = samples(fixture('agent/self-client.json'));

  it('takes the name from the config although its member is the zero member, and says server="false"', () => {
    const info = series('scheduler_agent_info', { ...T, name: 'nomad-client-7', region: 'global', datacenter: 'dc2', version: '1.9.3', server: 'false' });
    expect(s.get(info)).toBe(1);
  });

  it('exports the allocations and the runtime, and nothing of raft or gossip', () => {
    expect(s.get(g('client_allocations'))).toBe(7);
    expect(s.get(g('runtime_goroutines'))).toBe(211);
    expect([...s.keys()].some((k) => k.startsWith('scheduler_agent_raft_') || k.startsWith('scheduler_agent_serf_'))).toBe(false);
  });
});

describe('stats and config variations', () => {
  it('leaves a stat that is missing or not numeric absent, never 0', () => {
    const s = samples(withRaft({ num_peers: 'unknown', commit_index: undefined, state: undefined }));
    expect(s.has(g('raft_peers'))).toBe(false);
    expect(s.has(g('raft_commit_index'))).toBe(false);
    expect(s.has(g('raft_leader'))).toBe(false);
    expect(s.get(g('raft_applied_index'))).toBe(20484);
  });

  it('accepts the scheduler section under another name and infers server from it when the config says nothing', () => {
    const b = leaderBody();
    const { nomad, ...rest } = b.stats;
    const s = samples({ member: b.member, stats: { ...rest, scheduler: nomad } });
    const info = series('scheduler_agent_info', { ...T, name: 'nomad-server-1.global', region: 'global', datacenter: 'dc1', version: '1.9.3', server: 'true' });
    expect(s.get(info)).toBe(1);
  });

  it('reads an older agent’s Version string with its prerelease beside it', () => {
    const b = leaderBody();
    const s = samples({ ...b, config: { ...b.config, Version: '0.12.1', VersionPrerelease: 'beta1' } });
    expect([...seriesOf(s, 'scheduler_agent_info').keys()][0]).toContain('version="0.12.1-beta1"');
  });

  it('survives config durations as integer nanoseconds and stats it does not know', () => {
    const b = leaderBody();
    expect(() =>
      parse({ ...b, config: { ...b.config, Server: { Enabled: true, HeartbeatGrace: 10_000_000_000 } }, stats: { ...b.stats, vault: { token_ttl: '72h' } } }),
    ).not.toThrow();
  });
});

describe('self sections that cannot be read', () => {
  const b = leaderBody();
  it('a stats section that is not a map drops only its series', () => {
    const s = parse({ ...b, stats: { ...b.stats, raft: 'Leader' } });
    expect(s.raft).toBeUndefined();
    expect(s.serf).toEqual(parse(b).serf);
  });
  it('a config that cannot be read leaves the identity to the member', () => {
    const s = parse({ ...b, config: { ...b.config, Server: { Enabled: 'yes' } } });
    expect(s.name).toBe('nomad-server-1.global');
    expect(s.raft).toEqual(parse(b).raft);
  });
});

describe('self bodies that do not fit', () => {
  it.each([['a body that is a list', [], '(body)']])('%s is a schema failure naming the field', (_what, body, field) => {
    const err = parseFailure(() => parse(body));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain(`agent/self: unexpected response: ${field}`);
  });
});
