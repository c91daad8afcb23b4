import { spawnSync } from 'node:child_process';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { AlertmanagerConfig, ScrapeConfig } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1alpha1';
import { StatefulSet } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Service } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { requireTool } from './tools.js';

/** A built object, walked by the assertions: a wrong path fails the test. */
export interface Built {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML; see above
  spec: Record<string, any>;
  data?: Record<string, string>;
}

/** `kubectl kustomize DIR`, as users build it; fails the test with kubectl's message. */
export function kustomize(dir: string): Built[] {
  const kubectl = requireTool('kubectl', 'apt-get install kubernetes-client');
  const r = spawnSync(kubectl, ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed (${r.status}): ${r.stderr}`);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as Built);
}

const MODELS: Record<string, new (o: never) => { validate(): void }> = {
  Namespace,
  ConfigMap,
  Service,
  StatefulSet,
  NetworkPolicy,
  PodDisruptionBudget,
  ServiceMonitor,
  PrometheusRule,
  AlertmanagerConfig,
  ScrapeConfig,
};

/** Checks a built object against its Kubernetes or Prometheus Operator schema (throws naming the problem). */
export function validateBuilt(o: Built): void {
  const Model = MODELS[o.kind];
  if (!Model) throw new Error(`no schema for a ${o.kind} (${o.metadata.name}): add its model`);
  new Model(o as never).validate();
}

/** The one object of a kind (and name) in a build. */
export function only(objects: Built[], kind: string, name?: string): Built {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0]!;
}
