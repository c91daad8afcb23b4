import { describe, expect, it } from 'vitest';
import { primaryChangeCounter } from '../../../../src/collectors/secrets/primary-changes.js';
import { replicationSetFamilies, replicationSets, type SetMember } from '../../../../src/collectors/secrets/replication-sets.js';
import { replicationStatusData, type ReplicationStatus } from '../../../../src/upstream/secrets/replication-status.js';
import { series } from '../../../helpers/exposition.js';
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
