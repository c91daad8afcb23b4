import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_MIXIN, type MixinConfig } from '../../../scripts/mixin/config.js';
import { generateJsonnetMixin, JSONNET_DIR } from '../../../scripts/mixin/jsonnet.js';
import { generateAllRules, generateRules } from '../../../scripts/mixin/rules.js';
import { selectors } from '../../helpers/promql.js';
import { ALERTS_DIR, ruleFiles } from '../../helpers/rules.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { requireTool } from '../../helpers/tools.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE = join(ROOT, JSONNET_DIR);

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
}
interface Groups {
  groups: Array<{ name: string; rules: Rule[] }>;
}

/** Evaluates a jsonnet expression with vigil-mixin/ on the import path, as a user of jsonnet-bundler would. */
function jsonnet(code: string): unknown {
  const bin = requireTool('jsonnet', 'apt-get install jsonnet');
  const r = spawnSync(bin, ['-J', PACKAGE, '-e', code], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`jsonnet failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as unknown;
}

/** The groups of rule files (YAML text), in file order. */
const groupsOf = (texts: string[]) => texts.flatMap((t) => (parse(t) as Groups).groups);

describe('vigil-mixin/ (the jsonnet mixin package)', () => {
  it('is what alerts/src and dashboards/src generate (run `npm run mixin` after changing a rule or dashboard)', () => {
    const generated = generateJsonnetMixin();
    expect(readdirSync(PACKAGE).sort()).toEqual(Object.keys(generated).sort());
    for (const [file, text] of Object.entries(generated)) expect(readFileSync(join(PACKAGE, file), 'utf8'), file).toBe(text);
  });

  it('renders, with the default _config, the rules of alerts/*.rules.yml, every group', () => {
    const rendered = jsonnet(`(import 'mixin.libsonnet').prometheusAlerts`) as Groups;
    const shipped = groupsOf(
      ruleFiles()
        .sort()
        .map((f) => readFileSync(new URL(f, ALERTS_DIR), 'utf8')),
    );
    expect(rendered.groups.length).toBeGreaterThan(0);
    expect(rendered).toEqual({ groups: shipped });
    expect(jsonnet(`(import 'mixin.libsonnet').prometheusRules`)).toEqual({ groups: [] });
  });

  it('adds, with upstreamTelemetry, the optional rules of alerts/telemetry/ as one unit: alerts to prometheusAlerts, the health probe to prometheusRules', () => {
    const config = `{ _config+:: { upstreamTelemetry: true, vigilSelector: 'env="prod"', clusterLabel: 'cluster' } }`;
    const on = jsonnet(`local m = (import 'mixin.libsonnet') + ${config}; { a: m.prometheusAlerts, r: m.prometheusRules }`) as { a: Groups; r: Groups };
    const mine: MixinConfig = { ...DEFAULT_MIXIN, selector: 'env="prod"', clusterLabel: 'cluster', telemetry: true };
    const generated = generateAllRules(mine);
    const telemetry = groupsOf(Object.values(generated.telemetry));
    const isRecording = (g: Groups['groups'][number]) => g.rules.every((r) => 'record' in r);
    expect(on.a).toEqual({ groups: [...groupsOf(Object.values(generated.shipped)), ...telemetry.filter((g) => !isRecording(g))] });
    expect(on.r).toEqual({ groups: telemetry.filter(isRecording) });
    expect(on.r.groups.length).toBeGreaterThan(0);
    // The upstreams' series are not vigil's: the selector of vigil's series is not put on them.
    const audit = on.a.groups.flatMap((g) => g.rules).find((r) => r.alert === 'SecretsAuditLogFailing')!.expr;
    expect(audit).toContain('increase(vault_audit_log_request_failure[5m])');
    expect(audit).toContain('secrets_requests_blocked{env="prod"}');
  });

  describe('with a user’s _config', () => {
    const mine: MixinConfig = {
      selector: 'job="vigil-prod", env="prod"',
      job: 'vigil-prod',
      clusterLabel: 'cluster',
      for: { SecretsSealed: '3m', Watchdog: '1m' },
      severity: { VigilConfigReloadFailed: 'critical' },
      thresholds: { secretsLicenseWarningDays: 14, secretsLeadershipChangesPerHour: 10 },
      telemetry: false,
    };
    const override = `(import 'mixin.libsonnet') + { _config+:: ${JSON.stringify({
      vigilSelector: mine.selector,
      vigilJob: mine.job,
      clusterLabel: mine.clusterLabel,
      forDurations: mine.for,
      severities: mine.severity,
      thresholds: mine.thresholds,
    })} }`;
    const rendered = jsonnet(`(${override}).prometheusAlerts`) as Groups;
    const rules = rendered.groups.flatMap((g) => g.rules);

    it('changes every selector of every rule, every grouping, and the for: and severity named', () => {
      expect(rules.length).toBeGreaterThan(0);
      for (const r of rules) {
        expect(r.expr, r.alert).not.toMatch(/job="vigil"/);
        for (const s of selectors(r.expr)) {
          if (s.metric === 'up') expect(s.matchers, r.alert).toBe(`{${mine.selector}}`);
          else expect(s.matchers, `${r.alert}: ${s.metric}`).toContain(mine.selector);
        }
        for (const m of r.expr.matchAll(/\b(by|on)\s*\(([^)]*)\)/g)) expect(m[2], `${r.alert}: ${m[0]}`).toContain('cluster');
      }
      expect(rules.find((r) => r.alert === 'SecretsSealed')!.for).toBe('3m');
      expect(rules.find((r) => r.alert === 'Watchdog')!.for).toBe('1m');
      expect(rules.find((r) => r.alert === 'VigilConfigReloadFailed')!.labels.severity).toBe('critical');
      expect(rules.find((r) => r.alert === 'SecretsLicenseExpiringSoon')!.expr).toContain('< 14 * 86400');
      expect(rules.find((r) => r.alert === 'SecretsLeadershipChurn')!.expr).toMatch(/> 10$/);
    });

    it('gives what `npm run mixin -- --config` writes for the same config', () => {
      expect(rendered).toEqual({ groups: groupsOf(Object.values(generateRules(mine))) });
    });

    it.each(['env="prod"', 'job="vigil-prod"', ' job = "vigil-prod" , env="prod"', 'cronjob="x"'])(
      "selects vigil's own up as `npm run mixin` does with the selector %s alone: a dead vigil pages",
      (selector) => {
        const only = jsonnet(`((import 'mixin.libsonnet') + { _config+:: { vigilSelector: ${JSON.stringify(selector)} } }).prometheusAlerts`) as Groups;
        const down = (g: Groups) => g.groups.flatMap((x) => x.rules).find((r) => r.alert === 'VigilDown')?.expr;
        expect(down(only)).toBe(down({ groups: groupsOf(Object.values(generateRules({ ...DEFAULT_MIXIN, selector }))) }));
        expect(down(only)).toContain(selector.includes('job = ') ? 'job = "vigil-prod"' : selector);
      },
    );

    it('passes promtool check rules', () => {
      const file = join(tempDir('vigil-jsonnet-'), 'vigil.rules.yml');
      writeFileSync(file, JSON.stringify(rendered));
      const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['check', 'rules', file], { encoding: 'utf8', timeout: 30_000 });
      expect(`${r.stdout}${r.stderr}`).not.toContain('FAILED');
      expect(r.status).toBe(0);
    });

    it('is refused when it names an alert no rule defines, or a severity that is none of the four', () => {
      expect(() => jsonnet(`((import 'mixin.libsonnet') + { _config+:: { forDurations: { NoSuchAlert: '1m' } } }).prometheusAlerts`)).toThrow(
        /forDurations names an alert no rule defines: NoSuchAlert/,
      );
      expect(() => jsonnet(`((import 'mixin.libsonnet') + { _config+:: { severities: { VigilDown: 'loud' } } }).prometheusAlerts`)).toThrow(
        /a severity must be one of/,
      );
      expect(() => jsonnet(`((import 'mixin.libsonnet') + { _config+:: { thresholds: { licenceDays: 3 } } }).prometheusAlerts`)).toThrow(
        /thresholds names none of secretsRaftFailureToleranceExpected/,
      );
    });
  });

  it('renders grafanaDashboards, each equal to the committed dashboards/*.json', () => {
    const boards = jsonnet(`(import 'mixin.libsonnet').grafanaDashboards`) as Record<string, unknown>;
    const shipped = readdirSync(join(ROOT, 'dashboards')).filter((f) => f.endsWith('.json'));
    expect(Object.keys(boards).sort()).toEqual(shipped.sort());
    for (const f of shipped) expect(boards[f], f).toEqual(JSON.parse(readFileSync(join(ROOT, 'dashboards', f), 'utf8')));
  });

  it('keeps the default _config of the TypeScript mixin', () => {
    expect(jsonnet(`(import 'mixin.libsonnet')._config`)).toEqual({
      vigilSelector: DEFAULT_MIXIN.selector,
      vigilJob: DEFAULT_MIXIN.job,
      clusterLabel: DEFAULT_MIXIN.clusterLabel,
      forDurations: DEFAULT_MIXIN.for,
      severities: DEFAULT_MIXIN.severity,
      upstreamTelemetry: DEFAULT_MIXIN.telemetry,
      thresholds: DEFAULT_MIXIN.thresholds,
    });
  });
});
