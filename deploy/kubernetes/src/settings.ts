/**
 * The values the manifests share. What users change is set in kustomization.yaml (the image, the
 * namespace) and in the ConfigMap's vigil.yml; the sink's token lives in a Secret they create.
 */
export const NAME = 'vigil';
export const NAMESPACE = 'vigil';
/** Replaced by kustomization.yaml's `images:` entry. */
export const IMAGE = 'vigil:0.1.0';
export const PORT = 9810;
export const PORT_NAME = 'http';

/** Labels the Deployment's pods carry and every selector uses. */
export const SELECTOR = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/instance': NAME };
export const LABELS = { ...SELECTOR, 'app.kubernetes.io/component': 'monitoring' };

/** The image's user: the node image's `node` (uid and gid 1000). */
export const USER_ID = 1000;

export const CONFIG_DIR = '/etc/vigil/config';
export const DATA_DIR = '/var/lib/vigil';

/** The sink's bearer token: one Secret, mounted as a file in vigil and read by the operator for Alertmanager. */
export const SINK_TOKEN = { secret: 'vigil-sink-token', key: 'token', dir: '/etc/vigil/sink' };
/** The pager's and the heartbeat's webhook URLs, for the AlertmanagerConfig: one Secret you create. */
export const ALERT_RECEIVERS = { secret: 'vigil-alert-receivers', keys: { pager: 'pager-url', heartbeat: 'heartbeat-url' } } as const;
/** Tokens for the upstreams (secrets service, team service, DR operation token), as files; optional. */
export const UPSTREAM_TOKENS = { secret: 'vigil-upstream-tokens', dir: '/etc/vigil/tokens' };

/**
 * Sized from docs/performance.md (full size: ~124,500 series): RSS 162 MB after the first collection
 * and 220-270 MB under load, so 256Mi is requested and 512Mi (about twice the peak) is the limit;
 * a full collection costs 0.6 s of CPU per schedule turn, so 100m is requested and one core caps bursts.
 */
export const RESOURCES = {
  requests: { cpu: '100m', memory: '256Mi' },
  limits: { cpu: '1', memory: '512Mi' },
};

/** The Prometheus Operator labels the pods it runs; the NetworkPolicy admits only these. */
export const PROMETHEUS_PODS = { 'app.kubernetes.io/name': 'prometheus' };
export const ALERTMANAGER_PODS = { 'app.kubernetes.io/name': 'alertmanager' };

export const meta = (name: string, extra: Record<string, string> = {}) => ({
  name,
  namespace: NAMESPACE,
  labels: { ...LABELS, ...extra },
});
