import { describe, expect, it } from 'vitest';
import { decodeTeamsPage } from '../../../../src/collectors/teams/list.js';
import { MAX_LABEL_VALUE } from '../../../../src/support/label-value.js';

/** A page of exactly the 100 teams asked for, each named with `length` characters (the red team's 15 MB page). */
function page(length: number, name = (i: number, n: number) => `${String(i).padStart(3, '0')}${'n'.repeat(n - 3)}`): Buffer {
  const data = Array.from({ length: 100 }, (_, i) => ({
    id: `team-${i}`,
    type: 'teams',
    attributes: { name: name(i, length), 'users-count': 1, visibility: 'secret' },
  }));
  return Buffer.from(JSON.stringify({ data, links: {}, meta: { pagination: { 'current-page': 1, 'total-pages': 6 } } }));
}

describe('a page of teams with names of 150,000 characters', () => {
  const teams = decodeTeamsPage({ body: page(150_000), asked: { page: 1, size: 100 } }).teams;

  it('keeps each name folded to a label value, not 15 MB a page', () => {
    expect(teams).toHaveLength(100);
    const kept = teams.reduce((n, t) => n + t.name.length + t.id.length, 0);
    expect(kept).toBeLessThanOrEqual(100 * 2 * MAX_LABEL_VALUE);
    expect(Math.max(...teams.map((t) => t.name.length))).toBeLessThanOrEqual(MAX_LABEL_VALUE);
  });

  it('keeps names that differ only past the fold apart', () => {
    const endings = page(150_000, (i, n) => `${'n'.repeat(n - 3)}${String(i).padStart(3, '0')}`);
    const folded = decodeTeamsPage({ body: endings, asked: { page: 1, size: 100 } }).teams.map((t) => t.name);
    expect(new Set(folded).size).toBe(100);
    expect(Math.max(...folded.map((n) => n.length))).toBeLessThanOrEqual(MAX_LABEL_VALUE);
  });
});
