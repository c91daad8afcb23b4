import { describe, expect, it } from 'vitest';
import { autopilotFamilies, boundServers, leaderOf } from '../../../../src/collectors/agent/autopilot.js';
import { agentCollector } from '../../../../src/collectors/agent/collector.js';
import { agentTarget } from '../../../../src/collectors/agent/target.js';
import { autopilotHealthResponse } from '../../../../src/collectors/agent/autopilot.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { series, seriesOf } from '../../../helpers/exposition.js';
import { renderSamples } from '../../../helpers/render.js';

const parse = (body: unknown) => parseBody(autopilotHealthResponse, body, 'operator/autopilot/health');
const samples = (body: unknown) => renderSamples(autopilotFamilies, parse(body), { target: 's1' });
const one = (name: string, labels: Record<string, string> = {}) => series(`scheduler_agent_autopilot_${name}`, { target: 's1', ...labels });

const server = (name: string, over: Record<string, unknown> = {}) => ({
  ID: `id-${name}`,
  Name: name,
  Address: `10.0.0.${name.length}:4647`,
  SerfStatus: 'alive',
  Version: '1.7.5',
  Leader: false,
  LastContact: '12ms',
  LastTerm: 4,
  LastIndex: 100,
  Healthy: true,
  Voter: true,
  StableSince: '2024-02-20T16:40:55Z',
  ...over,
});

describe('GET /v1/operator/autopilot/health', () => {
  const three = {
    Healthy: false,
    FailureTolerance: 0,
    Servers: [
      server('a', { Leader: true, LastContact: '0s', LastIndex: 120 }),
      server('b'),
      server('c', { Healthy: false, SerfStatus: 'failed', LastIndex: 20 }),
    ],
  };

  it('reads the region: healthy, tolerance, voters counted from the servers', () => {
    const s = samples(three);
    expect(s.get(one('healthy'))).toBe(0);
    expect(s.get(one('failure_tolerance'))).toBe(0);
    expect(s.get(one('voters'))).toBe(3);
  });

  it("reads each server: health, voter, leader, last contact, status, and its index lag behind the leader's", () => {
    const s = samples(three);
    expect(s.get(one('server_healthy', { server: 'c' }))).toBe(0);
    expect(s.get(one('server_leader', { server: 'a' }))).toBe(1);
    expect(s.get(one('server_last_contact_seconds', { server: 'b' }))).toBeCloseTo(0.012);
    expect(s.get(one('server_index_lag', { server: 'b' }))).toBe(20);
    expect(s.get(one('server_index_lag', { server: 'c' }))).toBe(100);
    expect(s.get(one('server_status', { server: 'c', status: 'failed' }))).toBe(1);
    expect(s.get(one('server_status', { server: 'c', status: 'alive' }))).toBe(0);
  });

  it('prefers the Voters list newer servers send', () => {
    expect(samples({ ...three, Voters: ['id-a', 'id-b'] }).get(one('voters'))).toBe(2);
  });

  it('exports no voter count when a server does not say whether it votes, or an entry is unreadable: unknown is never fewer voters', () => {
    expect(samples({ ...three, Servers: [server('a'), server('b', { Voter: null })] }).has(one('voters'))).toBe(false);
    const s = samples({ ...three, Servers: [server('a'), 'garbage', server('b')] });
    expect(s.has(one('voters'))).toBe(false);
    expect(seriesOf(s, 'scheduler_agent_autopilot_server_healthy').size).toBe(2);
  });

  it('a missing field costs only its own series; missing servers export no per-server series and no voters', () => {
    const s = samples({ Healthy: true, FailureTolerance: '1' });
    expect(s.get(one('failure_tolerance'))).toBe(1);
    expect(s.has(one('voters'))).toBe(false);
    expect(seriesOf(s, 'scheduler_agent_autopilot_server_info').size).toBe(0);
    expect(samples({ Healthy: 'maybe', Servers: [] }).has(one('healthy'))).toBe(false);
  });

  it('gives series to at most max_raft_servers servers, the leader and the unhealthy ones first, and counts every voter', () => {
    const many = Array.from({ length: 150 }, (_, i) => server(`s${i}`, { Leader: i === 149, Healthy: i !== 120, LastIndex: 100 + (i === 149 ? 10 : 0) }));
    const s = renderSamples(autopilotFamilies, boundServers(parse({ Healthy: false, FailureTolerance: 1, Servers: many }), 100), { target: 's1' });
    expect(seriesOf(s, 'scheduler_agent_autopilot_server_healthy').size).toBe(100);
    expect(s.get(one('server_series_dropped'))).toBe(50);
    expect(s.get(one('server_healthy', { server: 's120' }))).toBe(0);
    expect(s.get(one('server_leader', { server: 's149' }))).toBe(1);
    expect(s.get(one('server_index_lag', { server: 's0' }))).toBe(10);
    expect(s.get(one('voters'))).toBe(150);
  });

  it('keeps the leader when more servers are unhealthy than max_raft_servers, listed after them', () => {
    const many = Array.from({ length: 20 }, (_, i) => server(`u${i}`, { Healthy: false, Leader: i === 19 }));
    const s = renderSamples(autopilotFamilies, boundServers(parse({ Healthy: false, FailureTolerance: 0, Servers: many }), 5), { target: 's1' });
    expect(seriesOf(s, 'scheduler_agent_autopilot_server_healthy').size).toBe(5);
    expect(s.get(one('server_leader', { server: 'u19' }))).toBe(1);
    expect(s.get(one('server_series_dropped'))).toBe(15);
  });

  it('names the leader from the answer, else from the one server that leads', () => {
    expect(leaderOf(parse({ Leader: 'x', Servers: [] }))).toBe('x');
    expect(leaderOf(parse(three))).toBe('id-a');
    expect(leaderOf(parse({ Servers: [server('a', { Leader: true }), server('b', { Leader: true })] }))).toBeUndefined();
  });
});

describe('leader changes', () => {
  const targets = (...names: string[]) => names.map((name) => agentTarget.parse({ name, address: 'http://127.0.0.1:1' }));

  it('counts a change of the leader named between two polls, not a poll that names none', () => {
    const state = agentCollector.state().leaders;
    expect(state.record('a', undefined)).toBeUndefined();
    expect(state.record('a', 'x')).toBe(0);
    expect(state.record('a', undefined)).toBe(0);
    expect(state.record('a', 'x')).toBe(0);
    expect(state.record('a', 'y')).toBe(1);
    expect(state.record('a', 'x')).toBe(2);
  });

  it('keeps the counts across a reload, and forgets a removed target', () => {
    const all = agentCollector.state();
    const state = all.leaders;
    state.record('a', 'x');
    state.record('a', 'y');
    state.record('b', 'x');
    state.record('b', 'y');
    agentCollector.settle?.(all, targets('a'), { store: { write: () => undefined } as never });
    expect(state.record('a', 'y')).toBe(1);
    expect(state.record('b', 'y')).toBe(0);
  });
});
