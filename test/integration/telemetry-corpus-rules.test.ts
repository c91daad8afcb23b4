import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { tempDir } from '../helpers/temp-dir.js';
import { requireTool } from '../helpers/tools.js';

/**
 * The real telemetry of the corpus (test/fixtures/real/telemetry/) as promtool input to every
 * optional rule of alerts/telemetry/: each sample as the shipped scrape job would store it (its
 * `cluster` label kept as `exported_cluster`, vigil's name for the upstream added), held for 30
 * minutes. What the sample shows is what fires (a job blocked on memory: blocked evaluations), and
 * nothing else: an answer that lacks a family costs that family's alert, never a false one.
 */
const ALERTS = fileURLToPath(new URL('../../alerts/', import.meta.url));
const CORPUS = new URL('../fixtures/real/telemetry/', import.meta.url);
const rules = readdirSync(join(ALERTS, 'telemetry')).filter((f) => f.endsWith('.rules.yml'));
const alertNames = [
  ...new Set(
    rules.flatMap((f) =>
      (parse(readFileSync(join(ALERTS, 'telemetry', f), 'utf8')) as { groups: Array<{ rules: Array<{ alert?: string }> }> }).groups.flatMap((g) =>
        g.rules.flatMap((r) => (r.alert ? [r.alert] : [])),
      ),
    ),
  ),
];

/** A sample's series as Prometheus stores them after the scrape job: the last value of each. */
function scraped(file: string, labels: Record<string, string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(new URL(file, CORPUS), 'utf8').split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    // The shipped job keeps the server's `cluster` as `exported_cluster`; Prometheus keeps a label
    // the target's own labels take (a job's `job`) as `exported_<name>`.
    const own = [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(
      ([, k, v]) => [k === 'cluster' || Object.hasOwn(labels, k!) ? `exported_${k}` : k!, v!] as const,
    );
    const all = [...own.filter(([, v]) => v !== ''), ...Object.entries(labels)].map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    out.set(`${m[1]}{${all.join(',')}}`, Number(m[3]));
  }
  return out;
}

const SAMPLES: Array<{ file: string; labels: Record<string, string>; fires: Array<{ alert: string; labels: Record<string, string> }> }> = [
  {
    file: 'scheduler/nomad-blocked-evals-issue-13759.prom',
    labels: { job: 'scheduler-telemetry', instance: 'dean:4646', region: 'global' },
    fires: [{ alert: 'SchedulerBlockedEvaluations', labels: { region: 'global', severity: 'warning' } }],
  },
  { file: 'secrets/vault-1.14.0-core-unsealed-issue-10015.prom', labels: { job: 'secrets-telemetry', instance: 'vault-0:8200', target: 'prod' }, fires: [] },
];

describe('the optional rules on the real telemetry of the corpus', () => {
  it.each(SAMPLES)('$file fires what it shows, and nothing else', ({ file, labels, fires }) => {
    const series = scraped(file, labels);
    expect(series.size).toBeGreaterThan(0);
    const dir = tempDir('vigil-corpus-rules-');
    const test = {
      rule_files: rules.map((f) => join(ALERTS, 'telemetry', f)),
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [...series].map(([s, v]) => ({ series: s, values: `${v}x30` })),
          alert_rule_test: alertNames.map((alert) => ({
            eval_time: '25m',
            alertname: alert,
            exp_alerts: fires.filter((f) => f.alert === alert).map((f) => ({ exp_labels: f.labels })),
          })),
        },
      ],
    };
    writeFileSync(join(dir, 'corpus.test.yml'), stringify(test));
    const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['test', 'rules', 'corpus.test.yml'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const output = `${r.stdout}${r.stderr}`;
    expect(output).not.toMatch(/invalid|error/i);
    if (fires.length === 0) expect(r.status, output).toBe(0);
    // promtool compares annotations too: a firing alert's differ by design; anything else fails.
    const failures = output
      .split('alertname: ')
      .slice(1)
      .map((b) => b.split(',')[0]!);
    expect(
      failures.filter((a) => !fires.some((f) => f.alert === a)),
      output,
    ).toEqual([]);
    // Each alert it shows is among what promtool got (the expectation leaves the annotations out).
    const got = output.split('got:').slice(1).join('\n');
    for (const f of fires)
      expect(got, output).toContain(
        `Labels:{alertname="${f.alert}", ${Object.entries(f.labels)
          .sort()
          .map(([k, v]) => `${k}="${v}"`)
          .join(', ')}}`,
      );
  });
});
