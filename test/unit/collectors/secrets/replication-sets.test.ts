import { describe, expect, it } from 'vitest';
import { primaryChangeCounter } from '../../../../src/collectors/secrets/primary-changes.js';
import { ClusterAddresses } from '../../../../src/collectors/secrets/cluster-addresses.js';
import { replicationSetFamilies, replicationSets, type SetMember } from '../../../../src/collectors/secrets/replication-sets.js';
import { replicationStatusData, type ReplicationStatus } from '../../../../src/collectors/secrets/replication-status.js';
import { series, seriesOf } from '../../../helpers/exposition.js';
import { renderSamples } from '../../../helpers/render.js';

const status = (s: Record<string, unknown>): ReplicationStatus => replicationStatusData.parse(s);
const ID = 'eef2a5ab-51e2-1c05-407c-8b4dc8d09ebf';
const primary = (target: string, extra: Record<string, unknown> = {}): SetMember => ({
  target,
  kind: 'performance',
  address: `https://${target}:8200`,
  status: status({ mode: 'primary', cluster_id: ID, known_secondaries: [], ...extra }),
});
const secondary = (target: string, extra: Record<string, unknown> = {}): SetMember => ({
  target,
  kind: 'performance',
  address: `https://${target}:8200`,
  status: status({ mode: 'secondary', cluster_id: ID, secondary_id: target, primary_cluster_addr: 'https://a:8201', ...extra }),
});
const primariesOf = (members: SetMember[]) => renderSamples(replicationSetFamilies, replicationSets(members), {});

describe("replication sets derived from the clusters' answers", () => {
  it('one primary and its secondary share a cluster_id: one set, one primary', () => {
    const sets = replicationSets([primary('a'), secondary('b')]);
    expect(sets).toHaveLength(1);
    expect(sets[0]).toMatchObject({ kind: 'performance', name: ID, primaries: ['a'] });
  });

  it('a promoted secondary beside a primary that was not demoted: two primaries in one set', () => {
    const m = primariesOf([primary('a'), primary('b'), secondary('c')]);
    expect(m.get(series('secrets_replication_set_primaries', { kind: 'performance', replication_set: ID }))).toBe(2);
    expect(m.get(series('secrets_replication_set_member_info', { kind: 'performance', replication_set: ID, target: 'b', mode: 'primary' }))).toBe(1);
  });

  it('two independent primaries (different ids, nothing linking them) are two sets of one', () => {
    const sets = replicationSets([primary('a'), primary('x', { cluster_id: 'other' })]);
    expect(sets.map((s) => s.primaries.length)).toEqual([1, 1]);
  });

  it("links by known secondaries and by primaries' api_address when ids differ", () => {
    const byKnown = replicationSets([primary('a', { known_secondaries: ['b'] }), secondary('b', { cluster_id: 'x' })]);
    expect(byKnown).toHaveLength(1);
    const byAddress = replicationSets([primary('a'), secondary('b', { cluster_id: 'x', secondary_id: 'zz', primaries: [{ api_address: 'https://a:8200' }] })]);
    expect(byAddress).toHaveLength(1);
  });

  it('does not join two primaries that merely list the same secondary id (ids are operator-chosen names)', () => {
    const sets = replicationSets([
      primary('prod', { cluster_id: 'p', known_secondaries: ['dr'] }),
      primary('staging', { cluster_id: 's', known_secondaries: ['dr'] }),
      secondary('prod-dr', { cluster_id: 'x', secondary_id: 'dr' }),
    ]);
    expect(sets.map((s) => s.primaries.length)).toEqual([1, 1, 0]);
  });

  it('joins what the answers cannot link by the explicit replication_set name, and names the set after it', () => {
    const sets = replicationSets([
      { ...primary('a'), explicit: 'prod' },
      { ...primary('x', { cluster_id: 'reenabled' }), explicit: 'prod' },
    ]);
    expect(sets).toHaveLength(1);
    expect(sets[0]).toMatchObject({ name: 'prod', primaries: ['a', 'x'] });
  });

  it('keeps kinds apart, and leaves disabled clusters out', () => {
    const dr = { ...primary('a'), kind: 'dr' as const };
    const sets = replicationSets([primary('a'), dr, { ...primary('d'), status: status({ mode: 'disabled' }) }]);
    expect(sets.map((s) => [s.kind, s.primaries.length])).toEqual([
      ['performance', 1],
      ['dr', 1],
    ]);
  });

  it('a secondary whose primary is none of the configured clusters is 0', () => {
    const m = primariesOf([secondary('b'), primary('a', { cluster_id: 'other' })]);
    expect(m.get(series('secrets_replication_secondary_primary_watched', { target: 'b', kind: 'performance' }))).toBe(0);
    expect(primariesOf([secondary('b'), primary('a')]).get(series('secrets_replication_secondary_primary_watched', { target: 'b', kind: 'performance' }))).toBe(
      1,
    );
  });
});

describe('clusters behind one proxy (one scheme, host and port, a path prefix each)', () => {
  const at = (m: SetMember, address: string): SetMember => ({ ...m, address });
  const naming = (api_address: string) => ({ cluster_id: 'sec', secondary_id: 'zz', primaries: [{ api_address }] });
  const targetsOf = (members: SetMember[]) =>
    replicationSets(members)
      .map((s) => s.members.map((m) => m.target).sort())
      .sort();

  it('keeps two primaries of different sets apart: two sets of one primary, no split brain', () => {
    const members = [at(primary('east', { cluster_id: 'e' }), 'http://proxy:8200/a'), at(primary('west', { cluster_id: 'w' }), 'http://proxy:8200/b')];
    const m = primariesOf(members);
    expect([...seriesOf(m, 'secrets_replication_set_primaries').values()]).toEqual([1, 1]);
    expect(m.get(series('secrets_replication_set_primaries', { kind: 'performance', replication_set: 'e' }))).toBe(1);
    expect(m.get(series('secrets_replication_set_primaries', { kind: 'performance', replication_set: 'w' }))).toBe(1);
  });

  it('links a secondary to the primary whose address, path prefix included, its answer names', () => {
    const members = [
      at(primary('east', { cluster_id: 'e' }), 'http://proxy:8200/a'),
      at(primary('west', { cluster_id: 'w' }), 'http://proxy:8200/b/'),
      secondary('east-pr', naming('http://proxy:8200/a/')),
      secondary('west-pr', { ...naming('http://PROXY:8200/b'), cluster_id: 'sec-2', secondary_id: 'yy' }),
    ];
    expect(targetsOf(members)).toEqual([
      ['east', 'east-pr'],
      ['west', 'west-pr'],
    ]);
  });

  it('links nothing by an address several configured clusters share', () => {
    const members = [
      at(primary('east', { cluster_id: 'e' }), 'http://proxy:8200/a'),
      at(primary('west', { cluster_id: 'w' }), 'http://proxy:8200/b'),
      secondary('pr', naming('http://proxy:8200')),
    ];
    expect(targetsOf(members)).toEqual([['east'], ['pr'], ['west']]);
    expect(primariesOf(members).get(series('secrets_replication_secondary_primary_watched', { target: 'pr', kind: 'performance' }))).toBe(0);
    // Two targets at one address (the same cluster configured twice) are not told apart either.
    const twice = [primary('a', { cluster_id: 'x1' }), primary('a2', { cluster_id: 'x2' }), secondary('b', naming('https://a:8200'))].map((m) =>
      m.target === 'a2' ? at(m, 'https://a:8200') : m,
    );
    expect(targetsOf(twice)).toEqual([['a'], ['a2'], ['b']]);
  });

  it('counts every configured cluster as a holder of its address, polled or not', () => {
    const members = [at(primary('east', { cluster_id: 'e' }), 'http://proxy:8200/a'), secondary('pr', naming('http://proxy:8200'))];
    expect(targetsOf(members)).toEqual([['east', 'pr']]);
    const addresses = new ClusterAddresses([
      { target: 'east', address: 'http://proxy:8200/a' },
      { target: 'west', address: 'http://proxy:8200/b' },
    ]);
    expect(replicationSets(members, { addresses }).map((s) => s.members.map((m) => m.target))).toEqual([['east'], ['pr']]);
  });

  it('still links an answer without a path to the one cluster configured behind a prefix at its origin', () => {
    const members = [at(primary('a', { cluster_id: 'p' }), 'https://lb:8200/secrets'), secondary('b', naming('https://lb:8200'))];
    expect(targetsOf(members)).toEqual([['a', 'b']]);
    // A path the configured address does not have names another cluster.
    expect(targetsOf([at(primary('a', { cluster_id: 'p' }), 'https://lb:8200'), secondary('b', naming('https://lb:8200/other'))])).toEqual([['a'], ['b']]);
  });

  it('links two secondaries that name the same primary vigil does not watch', () => {
    const members = [secondary('b', naming('https://gone:8200')), secondary('c', { ...naming('https://gone:8200/'), cluster_id: 'other', secondary_id: 'c' })];
    expect(targetsOf(members)).toEqual([['b', 'c']]);
  });
});

describe('a secondary whose assigned primary changes', () => {
  it('counts each change between two polls, not the first sight nor a promotion', () => {
    const count = primaryChangeCounter();
    const at = (addr: string) => new Map([['dr', status({ mode: 'secondary', primary_cluster_addr: addr })]]);
    expect(count(at('https://a:8201')).get('dr')).toBe(0);
    expect(count(at('https://a:8201')).get('dr')).toBe(0);
    expect(count(at('https://b:8201')).get('dr')).toBe(1);
    expect(count(new Map([['dr', status({ mode: 'primary' })]])).get('dr')).toBe(1);
    expect(count(at('https://c:8201')).get('dr')).toBe(1);
  });
});
