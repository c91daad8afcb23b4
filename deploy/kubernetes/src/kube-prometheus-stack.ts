import { readFileSync } from 'node:fs';
import { ConfigMap } from 'kubernetes-models/v1';
import { stringify } from 'yaml';
import { NAME, NAMESPACE, meta } from './settings.js';

/**
 * What kube-prometheus-stack needs to pick vigil up, as a kustomize component: the `release` label
 * its default selectors want on the ServiceMonitor, PrometheusRule and AlertmanagerConfig (set in
 * one place), and the dashboards as a ConfigMap for its Grafana's sidecar. An example overlay uses
 * it in the chart's usual namespace.
 */
const DASHBOARDS = new URL('../../../dashboards/', import.meta.url);
const DASHBOARD_FILES = ['secrets-replication.json', 'scheduler-agents.json', 'teams.json', 'vigil.json'];
export const RELEASE = 'kube-prometheus-stack';
export const EXAMPLE_NAMESPACE = 'monitoring';

const yaml = (v: unknown) => stringify(v, { lineWidth: 0 });

/** dashboards/*.json in one ConfigMap the Grafana sidecar loads (label grafana_dashboard: "1"). */
export const dashboardsConfigMap = () =>
  new ConfigMap({
    metadata: meta(`${NAME}-dashboards`, { grafana_dashboard: '1' }),
    data: Object.fromEntries(DASHBOARD_FILES.map((f) => [f, readFileSync(new URL(f, DASHBOARDS), 'utf8')])),
  });

export const releaseLabelTransformer = () =>
  `# The label kube-prometheus-stack's default serviceMonitorSelector, ruleSelector and
# alertmanagerConfigSelector want: set it to your Helm release's name, here only.
${yaml({
  apiVersion: 'builtin',
  kind: 'LabelTransformer',
  metadata: { name: 'kube-prometheus-stack-release' },
  labels: { release: RELEASE },
  fieldSpecs: ['ServiceMonitor', 'PrometheusRule', 'AlertmanagerConfig'].map((kind) => ({ kind, path: 'metadata/labels', create: true })),
})}`;

export const componentKustomization = () =>
  `# Include from your overlay: components: [<path to>/deploy/kube-prometheus-stack/component]
${yaml({ apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component', resources: ['dashboards.yaml'], transformers: ['release-label.yaml'] })}`;

/**
 * An overlay in another namespace. kustomize's namespace change does not reach the URL inside the
 * AlertmanagerConfig, so the overlay derives it from the Service's namespace (a replacement runs
 * after the namespace is set only in the kustomization that sets it: copy it with `namespace:`).
 */
export const exampleOverlay = () =>
  `# kubectl apply -k deploy/kube-prometheus-stack: vigil in the namespace of
# kube-prometheus-stack, picked up by its selectors and its Grafana. An overlay of your own that sets
# \`namespace:\` must keep the replacement below: it points Alertmanager's webhook at vigil's Service there.
${yaml({
  apiVersion: 'kustomize.config.k8s.io/v1beta1',
  kind: 'Kustomization',
  namespace: EXAMPLE_NAMESPACE,
  resources: ['../kubernetes'],
  components: ['component'],
  // The base's Namespace object would be renamed, not added: the chart's namespace exists.
  patches: [
    {
      target: { kind: 'Namespace', name: NAMESPACE },
      patch: yaml([{ op: 'add', path: '/metadata/annotations', value: { 'config.kubernetes.io/local-config': 'true' } }]),
    },
  ],
  replacements: [
    {
      source: { kind: 'Service', name: NAME, fieldPath: 'metadata.namespace' },
      targets: [
        {
          select: { kind: 'AlertmanagerConfig', name: NAME },
          fieldPaths: [`spec.receivers.[name=${NAME}].webhookConfigs.0.url`],
          options: { delimiter: '.', index: 1 },
        },
      ],
    },
  ],
})}`;
