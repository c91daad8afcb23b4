import { readdirSync, readFileSync } from 'node:fs';
import { isMap, isSeq, parseDocument, Scalar, type YAMLMap } from 'yaml';
import type { MixinConfig } from './config.js';
import { withGroupingLabel, withMatchers, withUpJob } from './promql.js';
import { THRESHOLDS, withThresholds } from './thresholds.js';

/** The rule files' source: alerts/src/*.rules.yml, written for the default labels. */
export const RULES_SOURCE = new URL('../../alerts/src/', import.meta.url);

const header = (file: string) => `# Generated from alerts/src/${file} by \`npm run mixin\`; edit the source, not this file.\n`;

/**
 * One alert's expression for a user's labels: their thresholds, their selector on vigil's series,
 * their job on `up`, their cluster label in every grouping.
 */
export function fitExpr(alert: string, expr: string, config: MixinConfig): string {
  return withGroupingLabel(
    withUpJob(
      withMatchers(withThresholds(alert, expr, config.thresholds), config.selector, (m) => m === 'up'),
      config.job,
      config.selector,
    ),
    config.clusterLabel,
  );
}

function scalar(value: string, multiline: boolean): Scalar {
  const s = new Scalar(value);
  if (multiline) s.type = Scalar.BLOCK_LITERAL;
  return s;
}

/** The rule files of `dir`, sorted: the order of the groups in every generated form. */
export function ruleSourceFiles(dir: URL = RULES_SOURCE): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.rules.yml'))
    .sort();
}

/** Each rule file of alerts/src fitted to `config`: file name → YAML, comments kept. */
export function generateRules(config: MixinConfig, dir: URL = RULES_SOURCE): Record<string, string> {
  const files = ruleSourceFiles(dir);
  const seen = new Set<string>();
  const out: Record<string, string> = {};
  for (const file of files) {
    const doc = parseDocument(readFileSync(new URL(file, dir), 'utf8'));
    const groups = doc.get('groups');
    if (!isSeq(groups)) throw new Error(`alerts/src/${file}: no groups`);
    for (const g of groups.items) {
      const rules = (g as YAMLMap).get('rules');
      if (!isSeq(rules)) continue;
      for (const item of rules.items) {
        if (!isMap(item)) continue;
        const name = String(item.get('alert') ?? item.get('record') ?? '');
        seen.add(name);
        const expr = String(item.get('expr'));
        const fitted = fitExpr(name, expr, config);
        if (fitted !== expr) item.set('expr', scalar(fitted, fitted.includes('\n')));
        if (config.for[name]) item.set('for', config.for[name]);
        const severity = config.severity[name];
        if (severity) (item.get('labels') as YAMLMap).set('severity', severity);
      }
    }
    out[file] = header(file) + doc.toString({ lineWidth: 0 });
  }
  for (const name of [...Object.keys(config.for), ...Object.keys(config.severity)]) {
    if (!seen.has(name)) throw new Error(`mixin config names an alert no rule defines: ${name}`);
  }
  for (const [name, t] of Object.entries(THRESHOLDS)) {
    if (!seen.has(t.alert)) throw new Error(`scripts/mixin/thresholds.ts: ${name} is a number of ${t.alert}, which no rule defines`);
  }
  return out;
}
