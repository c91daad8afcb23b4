import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TELEMETRY_SECRET } from '../../../deploy/kubernetes/src/telemetry.js';
import { telemetryJobs } from '../../../simulators/alerting/telemetry-jobs.js';
import { kustomize, validateBuilt, type Built } from '../../helpers/kustomize.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The optional component deploy/kube-prometheus-stack/telemetry (generated, and checked to be up to
 * date, with the rest of deploy/ by kubernetes.test.ts): built the way users include it.
 */
const DEPLOY = fileURLToPath(new URL('../../../deploy/', import.meta.url));
const scratch = tempDir('vigil-telemetry-overlay-');

/** An overlay of `resources` and `components` (paths under deploy/), built with kubectl kustomize. */
function build(name: string, body: { namespace?: string; resources: string[]; components: string[] }): Built[] {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  const rel = (p: string) => relative(dir, join(DEPLOY, p));
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      ...(body.namespace ? [`namespace: ${body.namespace}`] : []),
      `resources: [${body.resources.map(rel).join(', ')}]`,
      `components: [${body.components.map(rel).join(', ')}]`,
      '',
    ].join('\n'),
  );
  return kustomize(dir);
}

describe('deploy/kube-prometheus-stack/telemetry (optional component)', () => {
  const objects = build('with-telemetry', { resources: ['kube-prometheus-stack'], components: ['kube-prometheus-stack/telemetry'] });
  const scrapes = objects.filter((o) => o.kind === 'ScrapeConfig');
  const jobs = telemetryJobs();

  it('adds one ScrapeConfig per telemetry job of deploy/prometheus/prometheus.yml, valid, beside vigil in the chart’s namespace', () => {
    expect(jobs.map((j) => j.job_name).sort()).toEqual(['scheduler-telemetry', 'secrets-telemetry', 'teams-hosted-telemetry', 'teams-telemetry']);
    expect(scrapes.map((s) => s.spec.jobName).sort()).toEqual(jobs.map((j) => j.job_name).sort());
    for (const s of scrapes) {
      validateBuilt(s);
      expect(s.metadata.namespace).toBe('monitoring');
      expect(s.apiVersion).toBe('monitoring.coreos.com/v1alpha1');
    }
  });

  it('carries the release label the chart’s scrapeConfigSelector wants, from the one place it is set', () => {
    for (const s of scrapes) expect(s.metadata.labels?.release).toBe('kube-prometheus-stack');
  });

  it('scrapes what each job scrapes: path, parameters, scheme, nodes and labels, and Vault’s cluster label kept apart', () => {
    for (const j of jobs) {
      const s = scrapes.find((x) => x.spec.jobName === j.job_name)!;
      expect(s.spec.metricsPath).toBe(j.metrics_path);
      expect(s.spec.params).toEqual(j.params);
      expect(s.spec.scheme).toBe(j.scheme?.toUpperCase());
      expect(s.spec.staticConfigs).toEqual(j.static_configs);
    }
    expect(scrapes.find((s) => s.spec.jobName === 'secrets-telemetry')!.spec.metricRelabelings).toEqual([
      { sourceLabels: ['cluster'], targetLabel: 'exported_cluster' },
      { regex: 'cluster', action: 'labeldrop' },
    ]);
  });

  it('reads every token and CA from keys of one Secret, never inline', () => {
    const withToken = scrapes.filter((s) => s.spec.authorization);
    expect(withToken.map((s) => s.spec.jobName).sort()).toEqual(['secrets-telemetry', 'teams-hosted-telemetry']);
    for (const s of withToken) {
      expect(s.spec.authorization.type).toBe('Bearer');
      expect(s.spec.authorization.credentials).toEqual({ name: TELEMETRY_SECRET, key: expect.any(String) });
    }
    const keys = scrapes.flatMap((s) => [s.spec.authorization?.credentials.key, s.spec.tlsConfig?.ca.secret.key]).filter(Boolean);
    expect(new Set(keys).size).toBe(keys.length);
    expect(JSON.stringify(scrapes)).not.toMatch(/credentials_file|"credentials":"[^{]/);
  });

  it('brings the optional rules of alerts/telemetry/ and the telemetry dashboard with the scrapes, as one unit the chart picks up', () => {
    const rule = objects.find((o) => o.kind === 'PrometheusRule' && o.metadata.name === 'vigil-telemetry') as
      | {
          metadata: { namespace?: string; labels?: Record<string, string> };
          spec: { groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string }> }> };
        }
      | undefined;
    expect(rule?.metadata.namespace).toBe('monitoring');
    expect(rule?.metadata.labels?.release).toBe('kube-prometheus-stack');
    const names = rule!.spec.groups.flatMap((g) => g.rules.map((r) => r.alert ?? r.record));
    for (const n of ['SecretsAuditLogFailing', 'SchedulerBlockedEvaluations', 'TeamsAgentsErrored', 'vault_health_status_code']) expect(names).toContain(n);
    const boards = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'vigil-telemetry-dashboards') as
      { metadata: { namespace?: string; labels?: Record<string, string> }; data: Record<string, string> } | undefined;
    expect(boards?.metadata.namespace).toBe('monitoring');
    expect(boards?.metadata.labels?.grafana_dashboard).toBe('1');
    expect(Object.keys(boards!.data)).toEqual(['upstream-telemetry.json']);
    // Without the component, none of it.
    const plain = build('without-telemetry', { resources: ['kube-prometheus-stack'], components: [] });
    expect(plain.filter((o) => o.kind === 'ScrapeConfig' || o.metadata.name === 'vigil-telemetry')).toEqual([]);
  });

  it('fails the build when listed before the component that sets the release label, rather than leave the jobs unselected', () => {
    expect(() =>
      build('wrong-order', {
        namespace: 'monitoring',
        resources: ['kubernetes'],
        components: ['kube-prometheus-stack/telemetry', 'kube-prometheus-stack/component'],
      }),
    ).toThrow(/metadata\.labels\.release/);
  });
});
