import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COLLECTORS, ENDPOINTS } from '../../../src/collectors/index.js';
import { parseConfig } from '../../../src/config/load.js';
import { tempFile } from '../../helpers/daemon.js';

/**
 * The bounds each endpoint declares: every family that counts what a cap left out is declared by
 * the endpoint that feeds it, its config key refuses what is out of range and names itself, and
 * VigilSeriesDropped reads it, so no cap leaves series out unseen.
 */
const bounds = ENDPOINTS.flatMap(({ kind, endpoint }) => (endpoint.bounds ?? []).map((b) => ({ kind, id: endpoint.id, ...b })));
const token = tempFile('token', 'x\n');

/** A target of `kind` with `key` (dotted) set to `value`, and what the key's block needs besides. */
function config(kind: string, key: string, value: number): string {
  const [head, ...rest] = key.split('.');
  const needs = head === 'merkle_check' ? `dr_operation_token_file: ${token}, ` : head === 'snapshots' ? 'list: true, ' : '';
  const field = rest.length ? `${head}: { ${needs}${rest.join('.')}: ${value} }` : `${head}: ${value}`;
  const own = kind === 'teams' ? ', organization: acme' : '';
  return `${kind}:\n  - { name: t, address: "http://127.0.0.1:1", token_file: ${token}${own}, ${field} }\n`;
}

const errorOf = (text: string): string => {
  try {
    parseConfig(text, 'v');
    return '';
  } catch (e) {
    return String(e);
  }
};

describe('the bounds the endpoints declare', () => {
  it('are there: at least one per upstream', () => {
    expect(new Set(bounds.map((b) => b.kind))).toEqual(new Set(COLLECTORS.map((c) => c.kind)));
  });

  it.each(bounds.map((b) => [b.id, b.key, b] as const))('%s: %s takes a small value and refuses a negative one by name', (_id, key, b) => {
    expect(errorOf(config(b.kind, key, 5))).toBe('');
    expect(errorOf(config(b.kind, key, -1))).toContain(key.split('.').pop());
  });

  it.each(bounds.map((b) => [b.id, b.dropped, b] as const))('%s: %s is a family its collector exports', (_id, dropped, b) => {
    const collector = COLLECTORS.find((c) => c.kind === b.kind);
    expect(collector?.families.map((f) => f.name)).toContain(dropped);
  });

  it('declare every family that counts series left out', () => {
    const declared = new Set(bounds.map((b) => b.dropped));
    const counting = COLLECTORS.flatMap((c) => c.families.map((f) => f.name)).filter((n) => /series_dropped/.test(n));
    expect(counting.filter((n) => !declared.has(n))).toEqual([]);
  });

  it('are each read by VigilSeriesDropped', () => {
    const rules = parse(readFileSync(new URL('../../../alerts/vigil.rules.yml', import.meta.url), 'utf8')) as {
      groups: Array<{ rules: Array<{ alert?: string; expr: string }> }>;
    };
    const expr = rules.groups.flatMap((g) => g.rules).find((r) => r.alert === 'VigilSeriesDropped')?.expr ?? '';
    const patterns = [...expr.matchAll(/__name__=~"([^"]+)"/g)].map((m) => new RegExp(`^(?:${m[1]})$`));
    const read = (name: string) => new RegExp(`\\b${name}\\b`).test(expr) || patterns.some((p) => p.test(name));
    expect(bounds.map((b) => b.dropped).filter((n) => !read(n))).toEqual([]);
  });
});

describe('the listings', () => {
  // A listing's pages are the largest answers vigil reads and the ones that change least: each goes
  // through its target's memo (an unchanged page costs a digest, not a parse) and, from a size on,
  // through the decoding thread, which is what `offload` declares.
  const listings = ENDPOINTS.filter(({ endpoint }) => endpoint.paged !== undefined);
  it('are there: the teams, nodes, jobs, evaluations and deployments listings', () => {
    expect(listings.map(({ endpoint }) => endpoint.id).sort()).toEqual(
      expect.arrayContaining(['agent/deployments', 'agent/evaluations', 'agent/jobs', 'agent/nodes', 'teams/list']),
    );
  });
  it.each(listings.map(({ endpoint }) => [endpoint.id, endpoint] as const))('%s is remembered and decoded off the collection thread when large', (_id, e) => {
    expect(e.offload).toBeDefined();
    expect(e.offload!.from).toBeLessThanOrEqual(256 * 1024);
  });
});
