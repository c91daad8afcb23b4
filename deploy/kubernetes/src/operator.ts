import { PrometheusRule, ServiceMonitor, type IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { AlertmanagerConfig } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1alpha1';
import { operatorInhibitRules, operatorRoute, plainAlertmanagerConfig, type PlainAlertmanagerConfig } from './routing.js';
import { ALERT_RECEIVERS, NAME, NAMESPACE, PORT, PORT_NAME, SELECTOR, SINK_TOKEN, meta } from './settings.js';

/** A group of an alerts/*.rules.yml file. */
export type RuleGroup = NonNullable<IPrometheusRule['spec']['groups']>[number];

/** Scraped every 30 s, as deploy/prometheus/prometheus.yml does. */
export const serviceMonitor = () =>
  new ServiceMonitor({
    metadata: meta(NAME),
    spec: {
      selector: { matchLabels: SELECTOR },
      endpoints: [{ port: PORT_NAME, path: '/metrics', interval: '30s', scrapeTimeout: '10s' }],
    },
  });

/** Every group of alerts/*.rules.yml, unchanged, in file order. */
export const prometheusRule = (groups: RuleGroup[]) => new PrometheusRule({ metadata: meta(NAME), spec: { groups } });

/**
 * The routing of deploy/alertmanager/alertmanager.yml (routes, groups, intervals, inhibitions) with
 * its receivers made in-cluster: vigil's sink at its Service, with the bearer token from the Secret
 * vigil mounts, and the pager and the heartbeat (dead-man's switch) at the URLs of the Secret
 * vigil-alert-receivers that you create (see deploy/README.md).
 */
export const alertmanagerConfig = (plain: PlainAlertmanagerConfig = plainAlertmanagerConfig()) =>
  new AlertmanagerConfig({
    metadata: meta(NAME),
    spec: {
      route: operatorRoute(plain.route),
      receivers: plain.receivers.map((r) => receiver(r.name)),
      inhibitRules: operatorInhibitRules(plain.inhibit_rules),
    },
  });

function receiver(name: string) {
  if (name === NAME) {
    return {
      name,
      webhookConfigs: [
        {
          url: `http://${NAME}.${NAMESPACE}.svc:${PORT}/webhook/alertmanager`,
          sendResolved: true,
          maxAlerts: 0,
          httpConfig: { authorization: { type: 'Bearer', credentials: { name: SINK_TOKEN.secret, key: SINK_TOKEN.key } } },
        },
      ],
    };
  }
  const key = ALERT_RECEIVERS.keys[name as keyof typeof ALERT_RECEIVERS.keys];
  if (!key) throw new Error(`deploy/alertmanager/alertmanager.yml has a receiver the Kubernetes manifests do not know: ${name}`);
  return { name, webhookConfigs: [{ urlSecret: { name: ALERT_RECEIVERS.secret, key }, sendResolved: name !== 'heartbeat' }] };
}
