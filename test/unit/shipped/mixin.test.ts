import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_MIXIN, parseMixinConfig, type MixinConfig } from '../../../scripts/mixin/config.js';
import { mixinDashboards } from '../../../scripts/mixin/dashboards.js';
import { withGroupingLabel, withMatchers, withNumber, withUpJob } from '../../../scripts/mixin/promql.js';
import { generateRules } from '../../../scripts/mixin/rules.js';
import { selectors } from '../../helpers/promql.js';
import { ALERTS_DIR, ruleFiles } from '../../helpers/rules.js';
import { requireTool } from '../../helpers/tools.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('PromQL edits of the mixin', () => {
  it('adds matchers to every selector, with or without braces, and leaves the rest as written', () => {
    expect(withMatchers('max by (t) (x{a="b"}) * on (t) y + z{} unless vector(1)', 'env="prod"')).toBe(
      'max by (t) (x{env="prod", a="b"}) * on (t) y{env="prod"} + z{env="prod"} unless vector(1)',
    );
    expect(withMatchers('increase(x[$__rate_interval])', 'job=~"$job"')).toBe('increase(x{job=~"$job"}[$__rate_interval])');
    expect(withMatchers('up{job="vigil"} == 0', 'env="prod"', (m) => m === 'up')).toBe('up{job="vigil"} == 0');
    expect(withMatchers('x', '')).toBe('x');
  });

  it('adds a cluster label to by and on lists only', () => {
    expect(withGroupingLabel('sum by (a) (x) / on (a) group_left (r) sum without (b) (y) and ignoring (c) z', 'cluster')).toBe(
      'sum by (a, cluster) (x) / on (a, cluster) group_left (r) sum without (b) (y) and ignoring (c) z',
    );
    expect(withGroupingLabel('count by () (x) unless on (cluster) y', 'cluster')).toBe('count by (cluster) (x) unless on (cluster) y');
  });

  it('sets the matchers of up selectors: the job, with the selector; the selector alone when it names the job', () => {
    const expr = 'absent(up{job="vigil"}) or up{job="vigil"} == 0 or other{job="vigil"}';
    expect(withUpJob(expr, 'vigil-prod')).toBe('absent(up{job="vigil-prod"}) or up{job="vigil-prod"} == 0 or other{job="vigil"}');
    expect(withUpJob(expr, 'vigil-prod', 'env="prod"')).toBe(
      'absent(up{job="vigil-prod", env="prod"}) or up{job="vigil-prod", env="prod"} == 0 or other{job="vigil"}',
    );
    // As every other mixin's users write it: the selector's job selects vigil's own up, whatever the job key says.
    expect(withUpJob(expr, 'vigil', 'job="vigil-prod", env="prod"')).toBe(
      'absent(up{job="vigil-prod", env="prod"}) or up{job="vigil-prod", env="prod"} == 0 or other{job="vigil"}',
    );
    expect(withUpJob(expr, 'vigil', 'cronjob="x"')).toBe('absent(up{job="vigil", cronjob="x"}) or up{job="vigil", cronjob="x"} == 0 or other{job="vigil"}');
  });

  it('replaces the one number that has a threshold’s shipped value, and refuses an expression where it is not exactly once', () => {
    expect(withNumber('increase(x[1h]) > 3 < 30 * 86400', 30, 14, 'A')).toBe('increase(x[1h]) > 3 < 14 * 86400');
    expect(withNumber('x > 3', 3, 3, 'A')).toBe('x > 3');
    expect(() => withNumber('x > 1 and y < 1', 1, 2, 'SomeAlert (thresholds.t)')).toThrow(
      /SomeAlert \(thresholds\.t\): the number 1 is in its expression 2 times/,
    );
    expect(() => withNumber('x[1h] > 2', 1, 2, 'A')).toThrow(/0 times/);
  });

  it('refuses an expression that is not PromQL, naming it', () => {
    expect(() => withMatchers('sum(x', 'a="b"')).toThrow(/PromQL syntax error .* sum\(x/);
  });
});

describe('the mixin config', () => {
  it('reads every key, with defaults for the missing ones', () => {
    expect(parseMixinConfig('', 'm.yml')).toEqual(DEFAULT_MIXIN);
    expect(
      parseMixinConfig(
        'selector: env="prod"\njob: vigil-prod\ncluster_label: cluster\nfor: { VigilDown: 5m }\nseverity: { TeamsCountDropped: warning }\nthresholds: { secretsLicenseWarningDays: 14 }\ntelemetry: true\n',
        'm.yml',
      ),
    ).toEqual({
      selector: 'env="prod"',
      job: 'vigil-prod',
      clusterLabel: 'cluster',
      for: { VigilDown: '5m' },
      severity: { TeamsCountDropped: 'warning' },
      thresholds: { secretsLicenseWarningDays: 14 },
      telemetry: true,
    });
  });

  it('names the key and the problem of a bad config', () => {
    expect(() => parseMixinConfig('cluster_label: "not a label"', 'm.yml')).toThrow(/m\.yml: cluster_label: must be a Prometheus label name/);
    expect(() => parseMixinConfig('for: { VigilDown: soon }', 'm.yml')).toThrow(/for\.VigilDown: must be a Prometheus duration/);
    expect(() => parseMixinConfig('severity: { VigilDown: loud }', 'm.yml')).toThrow(/severity\.VigilDown/);
    expect(() => parseMixinConfig('jbo: vigil', 'm.yml')).toThrow(/jbo/);
    expect(() => parseMixinConfig('thresholds: { licenceDays: 3 }', 'm.yml')).toThrow(/thresholds\.licenceDays: is no threshold of the rules/);
    expect(() => parseMixinConfig('thresholds: { secretsLicenseWarningDays: 2.5 }', 'm.yml')).toThrow(
      /thresholds\.secretsLicenseWarningDays: must be a whole number/,
    );
    expect(() => generateRules({ ...DEFAULT_MIXIN, for: { NoSuchAlert: '1m' } })).toThrow(/NoSuchAlert/);
  });
});

describe('alerts/*.rules.yml', () => {
  it('are what alerts/src generates with the default config (run `npm run mixin` after changing a rule)', () => {
    const generated = generateRules(DEFAULT_MIXIN);
    expect(Object.keys(generated).sort()).toEqual(ruleFiles().sort());
    for (const [file, text] of Object.entries(generated)) expect(readFileSync(new URL(file, ALERTS_DIR), 'utf8'), file).toBe(text);
  });
});

describe('a user’s labels', () => {
  const mine: MixinConfig = {
    selector: 'env="prod"',
    job: 'vigil-prod',
    clusterLabel: 'cluster',
    for: { SecretsSealed: '3m' },
    severity: { VigilConfigReloadFailed: 'critical' },
    thresholds: { secretsLicenseWarningDays: 14, secretsLicenseCriticalDays: 3, secretsLeadershipChangesPerHour: 10, secretsRaftFailureToleranceExpected: 2 },
    telemetry: false,
  };
  const rules = Object.values(generateRules(mine)).flatMap((t) =>
    (parse(t) as { groups: Array<{ rules: Array<{ alert: string; expr: string; for?: string; labels: Record<string, string> }> }> }).groups.flatMap(
      (g) => g.rules,
    ),
  );

  it('take their thresholds, each in its own alert', () => {
    const expr = (alert: string) => rules.find((r) => r.alert === alert)!.expr;
    expect(expr('SecretsLicenseExpiringSoon')).toContain('< 14 * 86400');
    expect(expr('SecretsLicenseExpiryCritical')).toContain('< 3 * 86400 > 0');
    expect(expr('SecretsLeadershipChurn')).toMatch(/\) > 10$/);
    expect(expr('SecretsRaftFailureToleranceLow')).toMatch(/- 0\.5\), 2\)$/m);
    expect(expr('SecretsRaftFailureToleranceLost')).toContain('> 1');
  });

  it('select only their vigils in every rule, keep clusters apart in every grouping, and take their for: and severity', () => {
    for (const r of rules) {
      for (const s of selectors(r.expr)) {
        if (s.metric === 'up') expect(s.matchers, r.alert).toBe('{job="vigil-prod", env="prod"}');
        else expect(s.matchers, `${r.alert}: ${s.metric}`).toContain('env="prod"');
      }
      for (const m of r.expr.matchAll(/\b(by|on)\s*\(([^)]*)\)/g)) expect(m[2], `${r.alert}: ${m[0]}`).toContain('cluster');
    }
    expect(rules.find((r) => r.alert === 'SecretsSealed')!.for).toBe('3m');
    expect(rules.find((r) => r.alert === 'VigilConfigReloadFailed')!.labels.severity).toBe('critical');
  });

  it('pass promtool check rules', () => {
    const dir = tempDir('vigil-mixin-');
    const files = Object.entries(generateRules(mine)).map(([f, t]) => (writeFileSync(join(dir, f), t), join(dir, f)));
    const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['check', 'rules', ...files], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).not.toContain('FAILED');
    expect(r.status).toBe(0);
  });

  it('give the dashboards a cluster variable and read only the picked vigils in every query', () => {
    for (const d of Object.values(mixinDashboards(mine))) {
      const vars = (d.build() as unknown as { templating: { list: Array<{ name: string }> } }).templating.list.map((v) => v.name);
      expect(vars).toEqual(['datasource', 'cluster', 'job', 'instance', 'target']);
      for (const p of d.panels)
        for (const q of p.queries)
          for (const s of selectors(q.expr)) {
            expect(s.matchers, `${p.title}: ${q.expr}`).toMatch(/env="prod", cluster=~"\$cluster", job=~"\$job", instance=~"\$instance"/);
          }
    }
  });
});

describe('thresholds', () => {
  /** The alerts promtool finds firing at `at` for `series` (name → values), with the rules generated for `config`. */
  function firing(config: MixinConfig, series: Record<string, string>, at: string, alerts: string[]): string {
    const dir = tempDir('vigil-mixin-thresholds-');
    writeFileSync(join(dir, 'secrets-nodes.rules.yml'), generateRules(config)['secrets-nodes.rules.yml']!);
    const test = {
      rule_files: ['secrets-nodes.rules.yml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: Object.entries(series).map(([s, values]) => ({ series: s, values })),
          alert_rule_test: alerts.map((alertname) => ({ eval_time: at, alertname, exp_alerts: [] })),
        },
      ],
    };
    writeFileSync(join(dir, 'test.yml'), JSON.stringify(test));
    const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['test', 'rules', 'test.yml'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    // Every case expects silence: what promtool reports got is what fired.
    return [...`${r.stdout}${r.stderr}`.matchAll(/alertname: (\w+)/g)].map((m) => m[1]).join(' ');
  }

  const estate = {
    // Three healthy voters: tolerance 1, all that three voters give.
    'secrets_raft_failure_tolerance{target="three"}': '1x90',
    'secrets_raft_voters{target="three"}': '3x90',
    // A licence with 20 days left.
    'secrets_license_expiry_timestamp_seconds{target="lic",node="n"}': '1728000x90',
  };

  it('are where the shipped rules say: a healthy cluster of three voters and a licence 20 days from its end', () => {
    expect(firing(DEFAULT_MIXIN, estate, '80m', ['SecretsRaftFailureToleranceLow', 'SecretsLicenseExpiringSoon'])).toBe('SecretsLicenseExpiringSoon');
  });

  it('move when a user sets them: tolerance 2 expected of every cluster, licence warnings 14 days ahead', () => {
    const mine = { ...DEFAULT_MIXIN, thresholds: { secretsRaftFailureToleranceExpected: 2, secretsLicenseWarningDays: 14 } };
    expect(firing(mine, estate, '80m', ['SecretsRaftFailureToleranceLow', 'SecretsLicenseExpiringSoon'])).toBe('SecretsRaftFailureToleranceLow');
  });
});

describe('docs/paging.md, "Your labels"', () => {
  it('shows a config that the mixin takes', () => {
    const doc = readFileSync(new URL('../../../docs/paging.md', import.meta.url), 'utf8');
    const example = /```yaml\n(# my-labels\.yml[\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const config = parseMixinConfig(example!, 'my-labels.yml');
    expect(config.clusterLabel).toBe('cluster');
    expect(Object.keys(generateRules(config)).length).toBeGreaterThan(0);
  });
});
