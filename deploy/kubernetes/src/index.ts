import { readdirSync, readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { configMap, namespace } from './config.js';
import { networkPolicy, podDisruptionBudget, service } from './network.js';
import { alertmanagerConfig, prometheusRule, serviceMonitor, type RuleGroup } from './operator.js';
import { componentKustomization, dashboardsConfigMap, exampleOverlay, releaseLabelTransformer } from './kube-prometheus-stack.js';
import { IMAGE, NAMESPACE } from './settings.js';
import { configMapPatch, shardedComponent, shardedOverlay, statefulSetPatch } from './sharded.js';
import { scrapeConfigs, telemetryComponent, telemetryDashboards, telemetryRule } from './telemetry.js';
import { statefulSet } from './workload.js';

interface Model {
  validate(): void;
  toJSON(): unknown;
}

const ALERTS = new URL('../../../alerts/', import.meta.url);

/** The groups of alerts/*.rules.yml, files in name order: what the PrometheusRule must carry. */
export function alertGroups(dir: URL = ALERTS): RuleGroup[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.rules.yml'))
    .sort()
    .flatMap((f) => (parse(readFileSync(new URL(f, dir), 'utf8')) as { groups: RuleGroup[] }).groups);
}

/** Each manifest file and the objects in it. */
export function allManifests(groups: RuleGroup[] = alertGroups()): Record<string, Model[]> {
  return {
    'namespace.yaml': [namespace()],
    'configmap.yaml': [configMap()],
    'statefulset.yaml': [statefulSet()],
    'service.yaml': [service()],
    'networkpolicy.yaml': [networkPolicy()],
    'poddisruptionbudget.yaml': [podDisruptionBudget()],
    'servicemonitor.yaml': [serviceMonitor()],
    'prometheusrule.yaml': [prometheusRule(groups)],
    'alertmanagerconfig.yaml': [alertmanagerConfig()],
  };
}

const HEADER = '# Generated from deploy/kubernetes/src by `npm run kubernetes`; edit the source, not this file.\n';
const yaml = (v: unknown) => stringify(v, { lineWidth: 0 });

/** A manifest file: every object checked against its schema first (throws naming the problem). */
export function renderManifest(objects: Model[]): string {
  for (const o of objects) o.validate();
  return HEADER + objects.map((o) => yaml(o.toJSON())).join('---\n');
}

const [imageName, imageTag] = IMAGE.split(':');

export function renderKustomization(files: string[]): string {
  return (
    HEADER +
    '# kubectl apply -k deploy/kubernetes (after creating the Secret vigil-sink-token: see deploy/README.md)\n' +
    yaml({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace: NAMESPACE,
      resources: files,
      // The image you run: set newName/newTag (or `kustomize edit set image vigil=REGISTRY/vigil:TAG`).
      images: [{ name: imageName, newName: imageName, newTag: imageTag }],
    })
  );
}

/** Every file of deploy/kubernetes/ with its content. */
export function allFiles(groups?: RuleGroup[]): Record<string, string> {
  const manifests = allManifests(groups);
  const out: Record<string, string> = {};
  for (const [file, objects] of Object.entries(manifests)) out[file] = renderManifest(objects);
  out['kustomization.yaml'] = renderKustomization(Object.keys(manifests));
  // Beside deploy/kubernetes, not inside it: kustomize refuses a base that contains its overlay.
  out['../kube-prometheus-stack/component/kustomization.yaml'] = HEADER + componentKustomization();
  out['../kube-prometheus-stack/component/release-label.yaml'] = HEADER + releaseLabelTransformer();
  out['../kube-prometheus-stack/component/dashboards.yaml'] = renderManifest([dashboardsConfigMap()]);
  out['../kube-prometheus-stack/kustomization.yaml'] = HEADER + exampleOverlay();
  // Optional, and not in the overlay above: the upstreams' own telemetry.
  out['../kube-prometheus-stack/telemetry/kustomization.yaml'] = HEADER + telemetryComponent();
  out['../kube-prometheus-stack/telemetry/scrapeconfigs.yaml'] = renderManifest(scrapeConfigs());
  out['../kube-prometheus-stack/telemetry/prometheusrule.yaml'] = renderManifest([telemetryRule(alertGroups(new URL('telemetry/', ALERTS)))]);
  out['../kube-prometheus-stack/telemetry/dashboards.yaml'] = renderManifest([telemetryDashboards()]);
  // Patches, not whole objects: the test validates what kubectl kustomize builds from them.
  out['../kubernetes-sharded/component/kustomization.yaml'] = HEADER + shardedComponent();
  out['../kubernetes-sharded/component/statefulset.yaml'] = HEADER + yaml(statefulSetPatch());
  out['../kubernetes-sharded/component/configmap.yaml'] = HEADER + yaml(configMapPatch());
  out['../kubernetes-sharded/kustomization.yaml'] = HEADER + shardedOverlay();
  return out;
}
