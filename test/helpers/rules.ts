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

export function testFiles(): string[] {
  return readdirSync(new URL('tests/', ALERTS_DIR)).filter((f) => f.endsWith('.test.yml'));
}

/** Every alerting rule shipped in alerts/. */
export function alertRules(): AlertRule[] {
  return ruleFiles().flatMap((file) => {
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
export function ruleTestCoverage(): Map<string, { firing: number; silent: number }> {
  const cov = new Map<string, { firing: number; silent: number }>();
  for (const f of testFiles()) {
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
