import { readFileSync, readdirSync } from 'node:fs';
import { parse } from 'yaml';

export const ALERTS_DIR = new URL('../../alerts/', import.meta.url);

export interface AlertRule {
  file: string;
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

interface RuleFile {
  groups: Array<{ name: string; rules: Array<Partial<AlertRule> & { record?: string }> }>;
}

export function ruleFiles(): string[] {
  return readdirSync(ALERTS_DIR).filter((f) => f.endsWith('.rules.yml'));
}

/** The optional rules on the upstreams' telemetry (alerts/telemetry/), as paths under alerts/. */
export function telemetryRuleFiles(): string[] {
  return readdirSync(new URL('telemetry/', ALERTS_DIR))
    .filter((f) => f.endsWith('.rules.yml'))
    .map((f) => `telemetry/${f}`);
}

export function testFiles(): string[] {
  return readdirSync(new URL('tests/', ALERTS_DIR)).filter((f) => f.endsWith('.test.yml'));
}

/** The promtool tests of the optional rules, as paths under alerts/tests/. */
export function telemetryTestFiles(): string[] {
  return readdirSync(new URL('tests/telemetry/', ALERTS_DIR))
    .filter((f) => f.endsWith('.test.yml'))
    .map((f) => `telemetry/${f}`);
}

/** Every alerting rule shipped in alerts/ (`files`: the optional ones of alerts/telemetry/ instead). */
export function alertRules(files: string[] = ruleFiles()): AlertRule[] {
  return files.flatMap((file) => {
    const doc = parse(readFileSync(new URL(file, ALERTS_DIR), 'utf8')) as RuleFile;
    return doc.groups.flatMap((g) =>
      g.rules
        .filter((r) => r.alert)
        .map((r) => ({ file, alert: r.alert!, expr: r.expr!, ...(r.for ? { for: r.for } : {}), labels: r.labels ?? {}, annotations: r.annotations ?? {} })),
    );
  });
}

interface RuleTestFile {
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }>;
}

/** For each alert name, how many promtool test cases expect it firing and how many expect silence. */
export function ruleTestCoverage(files: string[] = testFiles()): Map<string, { firing: number; silent: number }> {
  const cov = new Map<string, { firing: number; silent: number }>();
  for (const f of files) {
    const doc = parse(readFileSync(new URL(`tests/${f}`, ALERTS_DIR), 'utf8')) as RuleTestFile;
    for (const t of doc.tests) {
      for (const c of t.alert_rule_test ?? []) {
        const e = cov.get(c.alertname) ?? { firing: 0, silent: 0 };
        if ((c.exp_alerts ?? []).length > 0) e.firing += 1;
        else e.silent += 1;
        cov.set(c.alertname, e);
      }
    }
  }
  return cov;
}

/** The anchors GitHub gives the `##` and `###` headings of a Markdown text (the runbooks' sections). */
export function runbookAnchors(markdown: string): string[] {
  return [...markdown.matchAll(/^#{2,3} (.+)$/gm)].map((m) =>
    m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replace(/ /g, '-'),
  );
}
