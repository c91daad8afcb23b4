import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseExposition } from './exposition.js';
import { ALERTS_DIR, alertRules, ruleFiles } from './rules.js';
import { tempDir } from './temp-dir.js';
import { requireTool } from './tools.js';

/**
 * The shipped alert rules evaluated by promtool over one scrape of vigil, every series held for 75
 * minutes: what a Prometheus scraping that vigil would fire.
 */

/** Every shipped alert that can page (the heartbeat, severity none, always fires by design). */
export const alertsThatCanPage = (): string[] => [
  ...new Set(
    alertRules()
      .filter((r) => r.labels.severity !== 'none')
      .map((r) => r.alert),
  ),
];

/** What one alert must fire at 75 minutes: its alerts' labels and annotations, as promtool writes them. */
export interface ExpectedAlerts {
  alertname: string;
  exp_alerts: Array<{ exp_labels: Record<string, string>; exp_annotations: Record<string, string> }>;
}

/** A promtool test of `text`'s series held constant, expecting each alert of `expected` to fire as given (none: `exp_alerts: []`). */
export function rulesOnScrapeTest(text: string, expected: readonly ExpectedAlerts[]): string {
  const input = [...parseExposition(text)]
    .filter(([, v]) => Number.isFinite(v))
    .map(([k, v]) => `      - series: ${JSON.stringify(k)}\n        values: ${JSON.stringify(`${v}x300`)}`)
    // What Prometheus adds for the scrape that read them: vigil is up.
    .concat(`      - series: 'up{job="vigil",instance="vigil:9810"}'\n        values: '1x300'`);
  const cases = expected.map((e) => `      - { eval_time: 75m, alertname: ${e.alertname}, exp_alerts: ${JSON.stringify(e.exp_alerts)} }`);
  const files = ruleFiles().map((f) => JSON.stringify(fileURLToPath(new URL(f, ALERTS_DIR))));
  return `rule_files: [${files.join(', ')}]\nevaluation_interval: 15s\ntests:\n  - interval: 15s\n    input_series:\n${input.join('\n')}\n    alert_rule_test:\n${cases.join('\n')}\n`;
}

/** A promtool test of `text`'s series held constant, expecting each of `silent` not to fire. */
export const silentRulesTest = (text: string, silent: readonly string[] = alertsThatCanPage()): string =>
  rulesOnScrapeTest(
    text,
    silent.map((alertname) => ({ alertname, exp_alerts: [] })),
  );

/** promtool's verdict on `silentRulesTest(text, silent)`: its exit status and what it printed. */
export const runSilentRulesTest = (text: string, silent?: readonly string[]): { status: number | null; output: string } =>
  runRulesOnScrapeTest(silentRulesTest(text, silent));

/** promtool's verdict on a test written by `rulesOnScrapeTest`. */
export function runRulesOnScrapeTest(test: string): { status: number | null; output: string } {
  const dir = tempDir('vigil-rules-on-scrape-');
  writeFileSync(join(dir, 'scrape.test.yml'), test);
  const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['test', 'rules', 'scrape.test.yml'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
