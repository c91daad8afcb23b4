import { readdirSync, readFileSync } from 'node:fs';
import { isMap, isSeq, parseDocument, Scalar, type YAMLMap } from 'yaml';
import type { MixinConfig } from './config.js';
import { withGroupingLabel, withMatchers, withUpJob } from './promql.js';
import { THRESHOLDS, withThresholds } from './thresholds.js';

/** The rule files' source: alerts/src/*.rules.yml, written for the default labels. */
export const RULES_SOURCE = new URL('../../alerts/src/', import.meta.url);

/**
 * The optional rules on the upstreams' own telemetry, and vigil as the vault-mixin's health probe:
 * alerts/src/telemetry/*.rules.yml, written to alerts/telemetry/, loaded only by who scrapes it.
 */
export const TELEMETRY_SOURCE = new URL('telemetry/', RULES_SOURCE);

/** Metrics of the upstreams' own telemetry: Prometheus scrapes them from the upstreams, so the selector of vigil's series is not theirs. */
export const isUpstreamMetric = (metric: string) => /^(vault|nomad|tfe|tfc|terraform)_/.test(metric);

const header = (file: string) => `# Generated from alerts/src/${file} by \`npm run mixin\`; edit the source, not this file.\n`;

/**
 * One alert's expression for a user's labels: their thresholds, their selector on vigil's series,
 * their job on `up`, their cluster label in every grouping.
 */
export function fitExpr(alert: string, expr: string, config: MixinConfig): string {
  return withGroupingLabel(
    withUpJob(
      withMatchers(withThresholds(alert, expr, config.thresholds), config.selector, (m) => m === 'up' || isUpstreamMetric(m)),
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

/** Each rule file of `dir` fitted to `config`, by file name, comments kept; the names of its rules go to `seen`. */
function fitFiles(config: MixinConfig, dir: URL, from: string, seen: Set<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of ruleSourceFiles(dir)) {
    const doc = parseDocument(readFileSync(new URL(file, dir), 'utf8'));
    const groups = doc.get('groups');
    if (!isSeq(groups)) throw new Error(`${from}${file}: no groups`);
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
        if (severity && item.get('labels')) (item.get('labels') as YAMLMap).set('severity', severity);
      }
    }
    out[file] = header(`${from.slice('alerts/src/'.length)}${file}`) + doc.toString({ lineWidth: 0 });
  }
  return out;
}

/**
 * The rule files fitted to `config`: `shipped`, those of alerts/src by file name; `telemetry`, the
 * optional ones of alerts/src/telemetry. A name in the config's `for`, `severity` or thresholds
 * must be a rule of either.
 */
export function generateAllRules(config: MixinConfig): { shipped: Record<string, string>; telemetry: Record<string, string> } {
  const seen = new Set<string>();
  const shipped = fitFiles(config, RULES_SOURCE, 'alerts/src/', seen);
  const telemetry = fitFiles(config, TELEMETRY_SOURCE, 'alerts/src/telemetry/', seen);
  for (const name of [...Object.keys(config.for), ...Object.keys(config.severity)]) {
    if (!seen.has(name)) throw new Error(`mixin config names an alert no rule defines: ${name}`);
  }
  for (const [name, t] of Object.entries(THRESHOLDS)) {
    if (!seen.has(t.alert)) throw new Error(`scripts/mixin/thresholds.ts: ${name} is a number of ${t.alert}, which no rule defines`);
  }
  return { shipped, telemetry };
}

/** Each rule file of alerts/src fitted to `config`: file name → YAML, comments kept. */
export function generateRules(config: MixinConfig): Record<string, string> {
  return generateAllRules(config).shipped;
}
