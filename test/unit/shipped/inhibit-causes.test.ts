import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { named, readShipped } from '../../../scripts/paging/matrix.js';
import { CAUSES } from '../../../src/server/problem-causes.js';

/**
 * The estate page folds a problem under its cause by src/server/problem-causes.ts; Alertmanager
 * silences a consequence while its cause fires by the shipped inhibit_rules. The two must tell the
 * same story: every inhibition is a pairing of the table, and every pairing of the table whose
 * consequence is no more severe than its cause is inhibited, with the same `equal`; a consequence
 * more severe than its cause is never inhibited (no warning silences a critical), and the table says
 * that it keeps paging.
 */

const { rules } = readShipped();
const RANK: Record<string, number> = { none: 0, info: 1, warning: 2, critical: 3 };
const severity = (alert: string) => {
  const found = [...new Set(rules.filter((r) => r.alert === alert).map((r) => r.severity))];
  if (found.length !== 1) throw new Error(`${alert}: ${found.length ? `several severities (${found.join(', ')})` : 'no rule of alerts/ defines it'}`);
  return RANK[found[0]!]!;
};

interface Pair {
  source: string;
  target: string;
  equal: string;
}
const key = (p: Pair) => `${p.source} → ${p.target} on [${p.equal}]`;

const tablePairs = CAUSES.flatMap((c) =>
  c.alerts.flatMap((source) =>
    c.explains.flatMap((x) => x.alerts.map((target) => ({ source, target, equal: [...c.equal].sort().join(','), alertmanager: x.alertmanager }))),
  ),
);

function inhibitions(file: string): Pair[] {
  const am = parse(readFileSync(new URL(`../../../deploy/alertmanager/${file}`, import.meta.url), 'utf8')) as {
    inhibit_rules?: Array<{ source_matchers: string[]; target_matchers: string[]; equal: string[] }>;
  };
  return (am.inhibit_rules ?? []).flatMap((r) =>
    named(rules, r.source_matchers).flatMap((source) =>
      named(rules, r.target_matchers).map((target) => ({ source, target, equal: [...r.equal].sort().join(',') })),
    ),
  );
}

describe.each(['alertmanager.yml', 'alertmanager-ha.yml'])('%s and the page’s causes', (file) => {
  const shipped = inhibitions(file);

  it('inhibits only what the table pairs, on the labels it names', () => {
    const inhibited = new Set(tablePairs.filter((p) => p.alertmanager === 'inhibited').map(key));
    expect(shipped.filter((p) => !inhibited.has(key(p))).map(key)).toEqual([]);
  });

  it('inhibits every consequence the table pairs with a cause at least as severe', () => {
    const have = new Set(shipped.map(key));
    const due = tablePairs.filter((p) => severity(p.target) <= severity(p.source));
    expect(due.filter((p) => p.alertmanager !== 'inhibited' || !have.has(key(p))).map(key)).toEqual([]);
  });

  it('keeps paging a consequence more severe than its cause, and the table says so', () => {
    const have = new Set(shipped.map((p) => `${p.source} → ${p.target}`));
    const above = tablePairs.filter((p) => severity(p.target) > severity(p.source));
    expect(above.length).toBeGreaterThan(0);
    expect(above.filter((p) => p.alertmanager !== 'pages' || have.has(`${p.source} → ${p.target}`)).map(key)).toEqual([]);
  });
});

describe('the table of causes', () => {
  it('names only alerts the shipped rules define, each with one severity', () => {
    for (const p of tablePairs) expect(() => [severity(p.source), severity(p.target)]).not.toThrow();
  });

  it('says "no alert" exactly where it names none', () => {
    const consequences = CAUSES.flatMap((c) => c.explains);
    expect(consequences.filter((x) => (x.alerts.length === 0) !== (x.alertmanager === 'no alert')).map((x) => x.kind)).toEqual([]);
  });
});
