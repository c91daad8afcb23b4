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

/** A promtool test of `text`'s series held constant, expecting each of `silent` not to fire. */
export function silentRulesTest(text: string, silent: readonly string[] = alertsThatCanPage()): string {
  const input = [...parseExposition(text)]
    .filter(([, v]) => Number.isFinite(v))
    .map(([k, v]) => `      - series: ${JSON.stringify(k)}\n        values: ${JSON.stringify(`${v}x300`)}`)
    // What Prometheus adds for the scrape that read them: vigil is up.
    .concat(`      - series: 'up{job="vigil",instance="vigil:9810"}'\n        values: '1x300'`);
  const cases = silent.map((a) => `      - { eval_time: 75m, alertname: ${a}, exp_alerts: [] }`);
  const files = ruleFiles().map((f) => JSON.stringify(fileURLToPath(new URL(f, ALERTS_DIR))));
  return `rule_files: [${files.join(', ')}]\nevaluation_interval: 15s\ntests:\n  - interval: 15s\n    input_series:\n${input.join('\n')}\n    alert_rule_test:\n${cases.join('\n')}\n`;
}

/** promtool's verdict on `silentRulesTest(text, silent)`: its exit status and what it printed. */
export function runSilentRulesTest(text: string, silent?: readonly string[]): { status: number | null; output: string } {
  const dir = tempDir('vigil-rules-on-scrape-');
  writeFileSync(join(dir, 'scrape.test.yml'), silentRulesTest(text, silent));
  const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['test', 'rules', 'scrape.test.yml'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
