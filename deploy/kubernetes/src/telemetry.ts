import { readdirSync, readFileSync } from 'node:fs';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { ScrapeConfig } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1alpha1';
import { ConfigMap } from 'kubernetes-models/v1';
import type { RuleGroup } from './operator.js';
import { stringify } from 'yaml';
import { telemetryJobs, type RelabelConfig, type TelemetryJob } from '../../../simulators/alerting/telemetry-jobs.js';
import { NAME, meta } from './settings.js';

/**
 * The upstreams' own telemetry as Prometheus Operator ScrapeConfigs, an optional kustomize
 * component over deploy/kube-prometheus-stack: the same jobs as the commented block of
 * deploy/prometheus/prometheus.yml, read from it so the two never differ. Files become keys of one
 * Secret you create (TELEMETRY_SECRET); nothing is inline.
 */
const FILES_DIR = '/etc/prometheus/';

/** The Secret whose keys hold the tokens and CA certificates the jobs name as files. */
export const TELEMETRY_SECRET = 'vigil-telemetry';

/** A file's key in the Secret: its name, or `<dir>-<name>` where two files share a name (ca.pem). */
export function secretKeys(jobs: TelemetryJob[]): Map<string, string> {
  const files = jobs.flatMap((j) => [j.tls_config?.ca_file, j.authorization?.credentials_file]).filter((f): f is string => f !== undefined);
  const base = (f: string) => f.slice(f.lastIndexOf('/') + 1);
  const keys = new Map<string, string>();
  for (const f of files) {
    if (!f.startsWith(FILES_DIR)) throw new Error(`deploy/prometheus/prometheus.yml: ${f} is not under ${FILES_DIR}`);
    const shared = files.some((g) => g !== f && base(g) === base(f));
    keys.set(f, shared ? f.slice(FILES_DIR.length).replaceAll('/', '-') : base(f));
  }
  return keys;
}

const relabeling = (r: RelabelConfig) => ({
  ...(r.source_labels ? { sourceLabels: r.source_labels } : {}),
  ...(r.target_label ? { targetLabel: r.target_label } : {}),
  ...(r.regex ? { regex: r.regex } : {}),
  ...(r.action ? { action: r.action } : {}),
});

/**
 * One ScrapeConfig per job. The Secret's keys replace the files. @kubernetes-models 4.4.4 predates
 * ScrapeConfig's scheme, params, authorization, tlsConfig and metricRelabelings (operator 0.65+):
 * validate() checks the rest, and the test checks these against the job.
 */
export function scrapeConfigs(jobs: TelemetryJob[] = telemetryJobs()): ScrapeConfig[] {
  const keys = secretKeys(jobs);
  const fromSecret = (file: string) => ({ name: TELEMETRY_SECRET, key: keys.get(file)! });
  return jobs.map((j) => {
    const spec = {
      jobName: j.job_name,
      staticConfigs: j.static_configs,
      ...(j.metrics_path ? { metricsPath: j.metrics_path } : {}),
      ...(j.params ? { params: j.params } : {}),
      ...(j.scheme ? { scheme: j.scheme.toUpperCase() } : {}),
      ...(j.tls_config?.ca_file ? { tlsConfig: { ca: { secret: fromSecret(j.tls_config.ca_file) } } } : {}),
      ...(j.authorization?.credentials_file ? { authorization: { type: 'Bearer', credentials: fromSecret(j.authorization.credentials_file) } } : {}),
      ...(j.metric_relabel_configs ? { metricRelabelings: j.metric_relabel_configs.map(relabeling) } : {}),
    };
    return new ScrapeConfig({ metadata: meta(j.job_name), spec: spec as ScrapeConfig['spec'] });
  });
}

const yaml = (v: unknown) => stringify(v, { lineWidth: 0 });

/** The optional rules of alerts/telemetry/ (alerts and the health probe's recording rules), switched on with the scrapes. */
export const telemetryRule = (groups: RuleGroup[]) => new PrometheusRule({ metadata: meta(`${NAME}-telemetry`), spec: { groups } });

const TELEMETRY_DASHBOARDS = new URL('../../../dashboards/telemetry/', import.meta.url);

/** dashboards/telemetry/*.json for the Grafana sidecar, as the vigil component's dashboards. */
export const telemetryDashboards = () =>
  new ConfigMap({
    metadata: meta(`${NAME}-telemetry-dashboards`, { grafana_dashboard: '1' }),
    data: Object.fromEntries(
      readdirSync(TELEMETRY_DASHBOARDS)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => [f, readFileSync(new URL(f, TELEMETRY_DASHBOARDS), 'utf8')]),
    ),
  });

/**
 * The component. Its ScrapeConfigs take the `release` label and the namespace of vigil's
 * ServiceMonitor, which the kube-prometheus-stack component and overlay set: the release name stays
 * written once, the jobs land where the chart's Prometheus looks, and a build that lists this
 * component before that one fails instead of leaving the ScrapeConfigs unselected.
 */
export const telemetryComponent = () =>
  `# Optional: scrape the upstreams' own telemetry (the jobs of deploy/prometheus/prometheus.yml's commented block),
# with the optional rules of alerts/telemetry/ and the dashboard of dashboards/telemetry/ on it: one unit.
# Include after the kube-prometheus-stack component:
#   components: [<path to>/deploy/kube-prometheus-stack/component, <path to>/deploy/kube-prometheus-stack/telemetry]
# and create the Secret ${TELEMETRY_SECRET} with the tokens and CA certificates (see deploy/README.md).
${yaml({
  apiVersion: 'kustomize.config.k8s.io/v1alpha1',
  kind: 'Component',
  resources: ['scrapeconfigs.yaml', 'prometheusrule.yaml', 'dashboards.yaml'],
  replacements: [
    {
      source: { kind: 'ServiceMonitor', name: NAME, fieldPath: 'metadata.labels.release' },
      targets: ['ScrapeConfig', 'PrometheusRule'].map((kind) => ({
        select: { kind, ...(kind === 'PrometheusRule' ? { name: `${NAME}-telemetry` } : {}) },
        fieldPaths: ['metadata.labels.release'],
        options: { create: true },
      })),
    },
    {
      source: { kind: 'ServiceMonitor', name: NAME, fieldPath: 'metadata.namespace' },
      targets: [
        { select: { kind: 'ScrapeConfig' }, fieldPaths: ['metadata.namespace'] },
        { select: { kind: 'PrometheusRule', name: `${NAME}-telemetry` }, fieldPaths: ['metadata.namespace'] },
        { select: { kind: 'ConfigMap', name: `${NAME}-telemetry-dashboards` }, fieldPaths: ['metadata.namespace'] },
      ],
    },
  ],
})}`;
