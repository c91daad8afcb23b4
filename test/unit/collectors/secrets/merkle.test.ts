import { describe, expect, it } from 'vitest';
import { merkleFamilies } from '../../../../src/collectors/secrets/merkle-check.js';
import { renderGroup } from '../../../../src/metrics/render.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { merkleCheckResponse } from '../../../../src/collectors/secrets/merkle-check.js';
import { fixture } from '../../../helpers/fixtures.js';
import { parseExposition, series, seriesOf } from '../../../helpers/exposition.js';

const samples = (body: unknown) => {
  const report = parseBody(merkleCheckResponse, body, 'dr/secondary/merkle-check').data.merkle_corruption_report;
  return parseExposition([...renderGroup(merkleFamilies, report, { target: 's' }).values()].join(''));
};

describe('POST sys/replication/dr/secondary/merkle-check', () => {
  const s = samples(fixture('secrets/merkle-check.json'));

  it('reports the root flag', () => {
    expect(s.get(series('secrets_merkle_corrupted_root', { target: 's' }))).toBe(0);
  });

  it('counts trees with a corrupted subtree root or any corrupted page, by tree type (0 included)', () => {
    expect(s.get(series('secrets_merkle_corrupted_trees', { target: 's', tree_type: 'replicated' }))).toBe(1);
    expect(s.get(series('secrets_merkle_corrupted_trees', { target: 's', tree_type: 'local' }))).toBe(1);
  });

  it('counts pages marked corrupted per tree (a null page map is 0)', () => {
    expect(s.get(series('secrets_merkle_corrupted_pages', { target: 's', tree: '1', tree_type: 'replicated' }))).toBe(2);
    expect(s.get(series('secrets_merkle_corrupted_pages', { target: 's', tree: '2', tree_type: 'local' }))).toBe(0);
    expect(s.get(series('secrets_merkle_corrupted_pages', { target: 's', tree: '3', tree_type: 'replicated' }))).toBe(0);
  });

  it('reads the ISO 8601 check time', () => {
    expect(s.get(series('secrets_merkle_last_check_timestamp_seconds', { target: 's' }))).toBe(Date.parse('2026-11-22T09:30:00Z') / 1000);
  });

  it('accepts a clean report with an empty tree map', () => {
    const clean = samples({
      data: { merkle_corruption_report: { corrupted_root: false, corrupted_tree_map: {}, last_corruption_check_epoch: '2026-01-01T00:00:00Z' } },
    });
    expect(clean.get(series('secrets_merkle_corrupted_trees', { target: 's', tree_type: 'replicated' }))).toBe(0);
    expect(clean.get(series('secrets_merkle_corrupted_root', { target: 's' }))).toBe(0);
  });

  it('reads a report without corrupted_root, without its series', () => {
    const s = samples({ data: { merkle_corruption_report: { corrupted_tree_map: {} } } });
    expect(seriesOf(s, 'secrets_merkle_corrupted_root').size).toBe(0);
  });

  it('reads a report without a tree map, without the tree series (not "no tree corrupted")', () => {
    const s = samples({ data: { merkle_corruption_report: { corrupted_root: false } } });
    expect(s.get(series('secrets_merkle_corrupted_root', { target: 's' }))).toBe(0);
    for (const name of ['secrets_merkle_corrupted_trees', 'secrets_merkle_corrupted_pages', 'secrets_merkle_corrupted_subpages']) {
      expect(seriesOf(s, name).size, name).toBe(0);
    }
    const unreadable = samples({ data: { merkle_corruption_report: { corrupted_tree_map: 'n/a' } } });
    expect(seriesOf(unreadable, 'secrets_merkle_corrupted_trees').size).toBe(0);
  });

  it('reads a null tree map as a report that lists no tree', () => {
    const s = samples({ data: { merkle_corruption_report: { corrupted_root: false, corrupted_tree_map: null } } });
    expect(s.get(series('secrets_merkle_corrupted_trees', { target: 's', tree_type: 'local' }))).toBe(0);
  });

  it('rejects an answer without a report', () => {
    expect(() => samples({ data: {} })).toThrow(/merkle_corruption_report/);
  });
});
