import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StatefulSet } from 'kubernetes-models/apps/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { allFiles } from '../../../deploy/kubernetes/src/index.js';
import { parseConfig } from '../../../src/config/load.js';
import { kustomize } from '../../helpers/kustomize.js';

const dir = new URL('../../../deploy/kubernetes/', import.meta.url);
const committed = (file: string) => readFileSync(new URL(file, dir), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML, walked by the assertions: a wrong path fails the test
type Obj = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec: Record<string, any>; data?: Record<string, string> };
const docs = (file: string) => parseAllDocuments(committed(file)).map((d) => d.toJS() as Obj);
const one = (file: string) => docs(file)[0]!;
const files = allFiles();
const STALE = 'deploy/kubernetes is stale: run `npm run kubernetes` and commit the result';

describe('deploy/kubernetes', () => {
  it.each(Object.keys(files))('%s is committed exactly as the generator writes it', (file) => {
    expect(committed(file), STALE).toBe(files[file]);
  });

  it('the PrometheusRule carries exactly the groups of alerts/*.rules.yml', () => {
    // Read straight from alerts/, not through the generator.
    const alertsDir = fileURLToPath(new URL('../../../alerts/', import.meta.url));
    const ruleFiles = readdirSync(alertsDir)
      .filter((f) => f.endsWith('.rules.yml'))
      .sort();
    const expected = ruleFiles.flatMap((f) => parse(readFileSync(`${alertsDir}/${f}`, 'utf8')).groups);
    expect(expected.length).toBeGreaterThan(0);
    expect(one('prometheusrule.yaml').spec.groups, STALE).toEqual(expected);
  });

  it('the schema check rejects a broken object (so a passing generation means something)', () => {
    const bad = new StatefulSet({ metadata: { name: 'x' }, spec: { selector: {}, serviceName: 'x', template: {}, replicas: 'one' as unknown as number } });
    expect(() => bad.validate()).toThrow(/replicas/);
  });

  it('runs vigil as a non-root user with a read-only root filesystem and no capabilities', () => {
    const pod = one('statefulset.yaml').spec.template.spec;
    const c = pod.containers[0];
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
    expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.resources.requests.memory).toBeDefined();
    expect(c.resources.limits.memory).toBeDefined();
  });

  it('gives vigil its secrets as files only, never as environment variables', () => {
    const pod = one('statefulset.yaml').spec.template.spec;
    expect(JSON.stringify(pod.containers)).not.toMatch(/secretKeyRef|envFrom|"env"/);
    const secretVolumes = (pod.volumes as { secret?: { secretName: string } }[]).flatMap((v) => (v.secret ? [v.secret.secretName] : []));
    expect(secretVolumes).toContain('vigil-sink-token');
    const am = one('alertmanagerconfig.yaml').spec.receivers[0].webhookConfigs[0];
    expect(am.httpConfig.authorization.credentials).toEqual({ name: 'vigil-sink-token', key: 'token' });
    expect(am.url).toBe('http://vigil.vigil.svc:9810/webhook/alertmanager');
  });

  it('ships a vigil.yml that vigil accepts, reading the sink token where the Secret is mounted', () => {
    const yml = one('configmap.yaml').data!['vigil.yml']!;
    const config = parseConfig(yml.replace('/etc/vigil/sink/token', '/dev/null'), 'vigil.yml');
    expect(config.alert_sink?.bearer_token_file).toBe('/dev/null');
    expect(yml).toContain('bearer_token_file: /etc/vigil/sink/token');
    const mounts = one('statefulset.yaml').spec.template.spec.containers[0].volumeMounts;
    expect(mounts).toContainEqual({ name: 'sink-token', mountPath: '/etc/vigil/sink', readOnly: true });
  });

  it('admits only Prometheus and Alertmanager pods', () => {
    const from = one('networkpolicy.yaml').spec.ingress.flatMap((r: { from: unknown[] }) => r.from) as {
      podSelector: { matchLabels: Record<string, string> };
    }[];
    expect(from.map((f) => f.podSelector.matchLabels['app.kubernetes.io/name']).sort()).toEqual(['alertmanager', 'prometheus']);
  });

  it('kubectl kustomize builds every object of the kustomization', () => {
    const kinds = kustomize(fileURLToPath(dir))
      .map((o) => o.kind)
      .sort();
    expect(kinds).toEqual([
      'AlertmanagerConfig',
      'ConfigMap',
      'Namespace',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'PrometheusRule',
      'Service',
      'ServiceMonitor',
      'StatefulSet',
    ]);
  });
});

describe('deploy/kube-prometheus-stack (overlay and component)', () => {
  const build = (path: string) => kustomize(fileURLToPath(new URL(path, dir)));

  it('puts every object in the chart’s namespace, leaves that namespace alone, and points Alertmanager’s webhook at vigil there', () => {
    const objects = build('../kube-prometheus-stack');
    expect(objects.map((o) => o.kind)).not.toContain('Namespace');
    expect(objects.every((o) => o.metadata.namespace === 'monitoring')).toBe(true);
    const am = objects.find((o) => o.kind === 'AlertmanagerConfig')!;
    expect(am.spec.receivers.find((r: { name: string }) => r.name === 'vigil').webhookConfigs[0].url).toBe(
      'http://vigil.monitoring.svc:9810/webhook/alertmanager',
    );
  });

  it('labels what the chart’s default selectors pick with its release, and nothing else', () => {
    const objects = build('../kube-prometheus-stack');
    const released = objects
      .filter((o) => o.metadata.labels?.release === 'kube-prometheus-stack')
      .map((o) => o.kind)
      .sort();
    expect(released).toEqual(['AlertmanagerConfig', 'PrometheusRule', 'ServiceMonitor']);
  });

  it('gives the Grafana sidecar every dashboard of dashboards/, as committed', () => {
    const cm = build('../kube-prometheus-stack').find((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1')!;
    const files = readdirSync(new URL('../../../dashboards/', import.meta.url))
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(Object.keys(cm.data!).sort()).toEqual(files);
    for (const f of files) expect(cm.data![f], f).toBe(readFileSync(new URL(`../../../dashboards/${f}`, import.meta.url), 'utf8'));
  });

  it('enforces the restricted Pod Security Standard on vigil’s own namespace', () => {
    const labels = one('namespace.yaml').metadata.labels as unknown as Record<string, string>;
    for (const mode of ['enforce', 'audit', 'warn']) expect(labels[`pod-security.kubernetes.io/${mode}`]).toBe('restricted');
  });
});
