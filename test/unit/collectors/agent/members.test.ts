import { describe, expect, it } from 'vitest';
import { droppedCounter } from '../../../../src/collectors/agent/members-dropped.js';
import { memberPollFamilies, memberSeriesDropped } from '../../../../src/collectors/agent/members.js';
import { renderGroup } from '../../../../src/metrics/render.js';
import { membersPoll } from '../../../../src/collectors/agent/members.js';
import { linesText } from '../../../../src/metrics/encoded-lines.js';
import { membersEndpoint } from '../../../../src/collectors/agent/members.js';

const membersNotApplicable = (e: UpstreamError) => membersEndpoint.notApplicable?.test(e);
import { agentMembersResponse } from '../../../../src/collectors/agent/members.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { parseExposition, series, seriesOf } from '../../../helpers/exposition.js';
import { countedItems } from '../../../helpers/counted-items.js';
import { fixture } from '../../../helpers/fixtures.js';
import { parseFailure } from '../../../helpers/render.js';

const parse = (body: unknown) => parseBody(agentMembersResponse, body, 'agent/members');
const T = { target: 's1' };
/**
 * Polls of one target in order, as its job makes them (decoded and rendered by `membersPoll`, the
 * members left out summed by the target's counter), with the series they export; returns the last.
 */
function polls(max: number, ...bodies: unknown[]): Map<string, number> {
  const count = droppedCounter({ name: T.target, max_members: max }, { warn: () => undefined });
  let last = new Map<string, number>();
  for (const b of bodies) {
    const r = count(membersPoll({ body: Buffer.from(JSON.stringify(b)), max, context: T }));
    const text = [...r.group.values(), ...renderGroup([memberSeriesDropped], r, T).values()].map(linesText).join('');
    last = parseExposition(text);
  }
  return last;
}
const count = (status: string) => series('scheduler_agent_members', { ...T, status });
const state = (member: string, status: string) => series('scheduler_agent_member_status', { ...T, member, status });
const dropped = series('vigil_agent_member_series_dropped_total', T);
const membersOf = (s: Map<string, number>, family: string) => new Set([...seriesOf(s, family).keys()].map((k) => /member="([^"]*)"/.exec(k)?.[1]));

describe('GET /v1/agent/members on a server', () => {
  const s = polls(10_000, fixture('agent/members-server.json'));

  it('counts members per status: alive, failed and left always, plus any other status seen', () => {
    expect(s.get(count('alive'))).toBe(3);
    expect(s.get(count('failed'))).toBe(1);
    expect(s.get(count('left'))).toBe(1);
    expect(s.get(count('leaving'))).toBe(1);
    expect(seriesOf(s, 'scheduler_agent_members').size).toBe(4);
  });

  it('exports each member as a state set over alive/failed/left', () => {
    expect(s.get(state('nomad-server-3.global', 'failed'))).toBe(1);
    expect(s.get(state('nomad-server-3.global', 'alive'))).toBe(0);
    expect(s.get(state('nomad-server-3.global', 'left'))).toBe(0);
    expect(s.get(state('nomad-server-4.global', 'left'))).toBe(1);
    expect(s.get(state('nomad-server-1.global', 'alive'))).toBe(1);
  });

  it('adds an unknown status to that member’s state set only', () => {
    expect(s.get(state('nomad-server-5.global', 'leaving'))).toBe(1);
    expect(s.get(state('nomad-server-5.global', 'alive'))).toBe(0);
    expect(s.has(state('nomad-server-1.global', 'leaving'))).toBe(false);
    expect(seriesOf(s, 'scheduler_agent_member_status').size).toBe(19);
  });

  it('exports member identity from Addr and the region, dc and build tags', () => {
    const info = (member: string, address: string, datacenter: string, build: string) =>
      series('scheduler_agent_member_info', { ...T, member, address, region: 'global', datacenter, build });
    expect(s.get(info('nomad-server-3.global', '10.0.1.12', 'dc2', '1.9.3'))).toBe(1);
    expect(s.get(info('nomad-server-2.global', '10.0.1.11', 'dc1', '1.9.2'))).toBe(1);
    expect(seriesOf(s, 'scheduler_agent_member_info').size).toBe(6);
  });

  it('drops nothing under the cap, and says so with a 0 counter', () => {
    expect(s.get(dropped)).toBe(0);
  });

  it('accepts a member without tags and an empty pool', () => {
    const bare = polls(10, { Members: [{ Name: 'n1', Addr: '10.0.0.1', Tags: null, Status: 'alive' }] });
    expect(bare.get(series('scheduler_agent_member_info', { ...T, member: 'n1', address: '10.0.0.1', region: '', datacenter: '', build: '' }))).toBe(1);
    const empty = polls(10, { Members: null });
    expect(empty.get(count('alive'))).toBe(0);
    expect(seriesOf(empty, 'scheduler_agent_member_status').size).toBe(0);
  });
});

describe('max_members', () => {
  it('keeps the members that are not alive first, drops the rest and counts them', () => {
    const s = polls(2, fixture('agent/members-server.json'));
    expect(membersOf(s, 'scheduler_agent_member_status')).toEqual(new Set(['nomad-server-3.global', 'nomad-server-4.global']));
    expect(membersOf(s, 'scheduler_agent_member_info')).toEqual(new Set(['nomad-server-3.global', 'nomad-server-4.global']));
    expect(s.get(dropped)).toBe(4);
  });

  it('keeps the per-status counts complete', () => {
    const s = polls(2, fixture('agent/members-server.json'));
    expect(s.get(count('alive'))).toBe(3);
    expect(s.get(count('leaving'))).toBe(1);
  });

  it('counts dropped members cumulatively across the polls of one target', () => {
    const body = fixture('agent/members-server.json');
    expect(polls(2, body, body).get(dropped)).toBe(8);
    expect(polls(0, body, body, body).get(dropped)).toBe(18);
  });

  it('keeps a separate count per target (per limiter)', () => {
    const body = fixture('agent/members-server.json');
    polls(2, body, body);
    expect(polls(2, body).get(dropped)).toBe(4);
  });
});

describe('a pool of thousands', () => {
  const big = (n: number) => ({
    Members: Array.from({ length: n }, (_, i) => ({
      Name: `server-${i}.global`,
      Addr: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      Port: 4648,
      Tags: { region: 'global', dc: 'dc1', build: '1.9.3' },
      Status: i % 100 === 0 ? 'failed' : 'alive',
    })),
  });

  // How long this takes is measured by bench/timings.ts, not asserted here.
  it('parses and renders 50,000 members, keeping the failed ones within the cap', () => {
    const s = polls(10_000, big(50_000));
    expect(s.get(count('alive'))).toBe(49_500);
    expect(s.get(count('failed'))).toBe(500);
    expect(s.get(dropped)).toBe(40_000);
    expect(seriesOf(s, 'scheduler_agent_member_info').size).toBe(10_000);
    expect(s.get(state('server-49900.global', 'failed'))).toBe(1);
  });
});

describe('a pool rendered as it is read', () => {
  it("makes each per-member family's samples one member at a time, never as a list first", () => {
    const perMember = memberPollFamilies.filter((f) => f.labels.includes('member'));
    expect(perMember.map((f) => f.name)).toEqual(['scheduler_agent_member_status', 'scheduler_agent_member_info']);
    for (const f of perMember) {
      const kept = countedItems(1_000, (i) => ({ Name: `server-${i}.global`, Addr: '10.0.0.1', Tags: {}, Status: 'alive' }));
      const samples = f.samples({ members: [], kept: kept.items as never })[Symbol.iterator]();
      expect(samples.next().value).toMatchObject({ labels: { member: 'server-0.global' } });
      expect(kept.read()).toBe(1);
    }
  });
});

describe('not applicable', () => {
  it('is what a client-only agent answers (500 "not a server", or 501); other errors are failures', () => {
    const err = (status: number, text: string) => new UpstreamError(status >= 500 ? 'http_5xx' : 'http_4xx', `agent/members: HTTP ${status}: ${text}`, status);
    expect(membersNotApplicable(err(500, 'Unexpected request: client agent is not a server'))).toBe(true);
    expect(membersNotApplicable(err(501, 'Invalid method'))).toBe(true);
    expect(membersNotApplicable(err(500, 'rpc error: No cluster leader'))).toBe(false);
    expect(membersNotApplicable(err(403, 'Permission denied'))).toBe(false);
  });
});

describe('member fields that cannot be read', () => {
  it('a tag that is not a string is dropped alone', () => {
    const m = parseBody(agentMembersResponse, { Members: [{ Name: 'a', Status: 'alive', Tags: { port: 4647, dc: 'dc1' } }] }, 'agent/members');
    expect(m.Members[0]?.Tags).toEqual({ dc: 'dc1' });
  });
});

describe('members bodies that do not fit', () => {
  it.each([
    ['a member without a status', { Members: [{ Name: 'a', Status: 'alive' }, { Name: 'b' }] }, 'Members.1.Status'],
    ['Members that is not a list', { Members: 'a,b' }, 'Members'],
  ])('%s is a schema failure naming the field', (_what, body, field) => {
    const err = parseFailure(() => parse(body));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain(`agent/members: unexpected response: ${field}`);
  });
});

describe('a pool over the cap, read by the worker', () => {
  const pool = {
    ServerName: 's1',
    Members: [
      { Name: 'a', Addr: '10.0.0.1', Status: 'alive', Tags: { region: 'r', dc: 'dc1', build: '1', port: 4647 } },
      { Name: 'b', Addr: 7, Status: 'failed', Tags: 'none' },
      { Name: 'c', Status: 'left', Tags: { dc: 'dc2' } },
      { Name: 'd', Addr: '10.0.0.4', Status: 'alive', Tags: null },
    ],
  };
  const poll = (body: unknown, max: number) => membersPoll({ body: Buffer.from(JSON.stringify(body)), max, context: T });
  const text = (p: ReturnType<typeof membersPoll>) => p.group.map(([, l]) => linesText(l)).join('');

  // Written out from the pool above: each member's state set and identity (Addr 7 and Tags 'none'
  // cannot be read, so b has none; a's numeric port tag is dropped alone).
  const statusOf: Record<string, string> = { a: 'alive', b: 'failed', c: 'left', d: 'alive' };
  const identity: Record<string, Record<string, string>> = {
    a: { address: '10.0.0.1', region: 'r', datacenter: 'dc1', build: '1' },
    b: { address: '', region: '', datacenter: '', build: '' },
    c: { address: '', region: '', datacenter: 'dc2', build: '' },
    d: { address: '10.0.0.4', region: '', datacenter: '', build: '' },
  };
  const expected = (kept: string[]) =>
    new Map<string, number>([
      [count('alive'), 2],
      [count('failed'), 1],
      [count('left'), 1],
      ...kept.flatMap((member) => ['alive', 'failed', 'left'].map((st): [string, number] => [state(member, st), statusOf[member] === st ? 1 : 0])),
      ...kept.map((member): [string, number] => [series('scheduler_agent_member_info', { ...T, member, ...identity[member] }), 1]),
    ]);

  it.each([
    [0, []],
    [1, ['b']],
    [2, ['b', 'c']],
    [3, ['b', 'c', 'a']],
    [4, ['a', 'b', 'c', 'd']],
  ])('with max_members %i renders every member counted and only %j, those not alive first', (max, kept) => {
    const p = poll(pool, max);
    expect(parseExposition(text(p))).toEqual(expected(kept));
    expect(p).toMatchObject({ members: 4, dropped: 4 - kept.length });
  });

  it('still fails on a member without a status, kept or not', () => {
    const body = { Members: [...pool.Members, { Name: 'e' }] };
    const err = parseFailure(() => poll(body, 1));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain('agent/members: unexpected response: Members.4.Status');
  });
});
