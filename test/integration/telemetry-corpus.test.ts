import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { promtoolCheckMetrics } from '../helpers/tools.js';

/** The corpus of real telemetry (test/fixtures/real/telemetry/): what it holds is usable as it is said to be. */
const ROOT = new URL('../fixtures/real/telemetry/', import.meta.url);
const files = readdirSync(ROOT, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(prom|md)$/.test(f) && f !== 'README.md');
const text = (f: string) => readFileSync(new URL(f, ROOT), 'utf8');

describe('the corpus of real telemetry', () => {
  it.each(files)('%s names its source and version', (f) => {
    expect(text(f)).toMatch(/source: (https:\/\/\S+|[\w-]+\/[\w.-]+:\S+@[0-9a-f]{40})/);
    expect(text(f)).toMatch(/version: \S/);
    expect(text('README.md'), 'listed in the README').toContain(f);
  });

  it.each(files.filter((f) => f.endsWith('.prom')))('%s parses as Prometheus text (lint findings aside)', (f) => {
    const check = promtoolCheckMetrics(text(f));
    // 0: clean; 3: lint findings only (the vendors' own HELP-less and `_count` names); 1: unparsable.
    expect([0, 3], check.output).toContain(check.status);
  });

  it('holds every family the optional teams rules’ tests feed them', () => {
    const test = parse(readFileSync(new URL('../../alerts/tests/telemetry/teams-telemetry.test.yml', import.meta.url), 'utf8')) as {
      tests: Array<{ input_series: Array<{ series: string }> }>;
    };
    const names = new Set(test.tests.flatMap((t) => t.input_series.map((s) => s.series.split('{')[0]!)));
    const teams = files
      .filter((f) => f.startsWith('teams/'))
      .map(text)
      .join('\n');
    expect(names.size).toBeGreaterThan(0);
    for (const n of names) expect(teams).toContain(`\`${n}\``);
  });
});
