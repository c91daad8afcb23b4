import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runbookAnchors } from '../helpers/rules.js';
import { requireTool } from '../helpers/tools.js';

/**
 * The optional rules on the upstreams' own telemetry (alerts/src/telemetry/), which are not part of
 * the shipped alerts/*.rules.yml: the same conventions and promtool checks as those, and a runbook
 * section in docs/runbooks.md or one of its fragments (docs/runbooks-*.md) until they are merged.
 */
const ALERTS = fileURLToPath(new URL('../../alerts/', import.meta.url));
const DOCS = new URL('../../docs/', import.meta.url);
const ruleFiles = () => readdirSync(`${ALERTS}src/telemetry`).filter((f) => f.endsWith('.rules.yml'));
const testFiles = () => readdirSync(`${ALERTS}tests/telemetry`).filter((f) => f.endsWith('.test.yml'));
const PROMTOOL_MS = 120_000;
const promtool = (args: string[]) => {
  const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), args, { cwd: ALERTS, encoding: 'utf8', timeout: PROMTOOL_MS });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
};

interface Rule {
  alert?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface TestFile {
  rule_files: string[];
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }>;
}

const alerts = ruleFiles().flatMap((f) =>
  (parse(readFileSync(`${ALERTS}src/telemetry/${f}`, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules.filter((r) => r.alert)),
);
const tests = testFiles().map((f) => parse(readFileSync(`${ALERTS}tests/telemetry/${f}`, 'utf8')) as TestFile);
const anchors = new Set(
  readdirSync(DOCS)
    .filter((f) => /^runbooks.*\.md$/.test(f))
    .flatMap((f) => runbookAnchors(readFileSync(new URL(f, DOCS), 'utf8'))),
);

describe('the optional telemetry alert rules', () => {
  it('pass promtool check rules', () => {
    const r = promtool(['check', 'rules', ...ruleFiles().map((f) => `src/telemetry/${f}`)]);
    expect(r.output).not.toContain('FAILED');
    expect(r.status).toBe(0);
  });

  it(
    'pass their promtool unit tests, every one of which loads a telemetry rule file',
    () => {
      for (const t of tests) for (const f of t.rule_files) expect(f).toMatch(/^\.\.\/\.\.\/src\/telemetry\/[a-z-]+\.rules\.yml$/);
      const r = promtool(['test', 'rules', ...testFiles().map((f) => `tests/telemetry/${f}`)]);
      expect(r.output).not.toContain('FAILED');
      expect(r.status).toBe(0);
    },
    PROMTOOL_MS,
  );

  it.each(alerts.map((a) => [a.alert!, a] as const))(
    '%s follows the mixin conventions, links a runbook section, and is tested firing and silent',
    (name, rule) => {
      expect(name).toMatch(/^(Secrets|Scheduler|Teams)[A-Za-z]+$/);
      expect(['critical', 'warning', 'info', 'none']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toMatch(/^[A-Z][^{]*\.$/);
      expect(rule.annotations?.description).toContain('{{');
      const anchor = /#([a-z0-9-]+)$/.exec(rule.annotations?.runbook_url ?? '')?.[1];
      expect(anchor).toBe(name.toLowerCase());
      expect(anchors).toContain(anchor);
      const cases = tests.flatMap((t) => t.tests.flatMap((c) => c.alert_rule_test ?? [])).filter((c) => c.alertname === name);
      expect(cases.some((c) => (c.exp_alerts ?? []).length > 0)).toBe(true);
      expect(cases.some((c) => (c.exp_alerts ?? []).length === 0)).toBe(true);
    },
  );
});
