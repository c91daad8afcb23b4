import {
  PrometheusRule, ServiceMonitor, type IPrometheusRule,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { AlertmanagerConfig } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1alpha1';
import { NAME, NAMESPACE, PORT, PORT_NAME, SELECTOR, SINK_TOKEN, meta } from './settings.js';

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
export const prometheusRule = (groups: RuleGroup[]) =>
  new PrometheusRule({ metadata: meta(NAME), spec: { groups } });

const alertname = (value: string, matchType: '=' | '=~' = '=') => ({ name: 'alertname', value, matchType });

/**
 * Routes like deploy/alertmanager/alertmanager.yml: every notification, and the Watchdog heartbeat
 * every minute, to vigil's sink, with the bearer token read from the Secret vigil mounts.
 * Your pager receiver stays in your own Alertmanager configuration.
 */
export const alertmanagerConfig = () =>
  new AlertmanagerConfig({
    metadata: meta(NAME),
    spec: {
      route: {
        receiver: NAME,
        groupBy: ['alertname', 'target'],
        groupWait: '30s',
        groupInterval: '5m',
        repeatInterval: '4h',
        routes: [{ matchers: [alertname('Watchdog')], receiver: NAME, groupWait: '0s', groupInterval: '1m', repeatInterval: '1m' }],
      },
      receivers: [
        {
          name: NAME,
          webhookConfigs: [
            {
              url: `http://${NAME}.${NAMESPACE}.svc:${PORT}/webhook/alertmanager`,
              sendResolved: true,
              maxAlerts: 0,
              httpConfig: { authorization: { type: 'Bearer', credentials: { name: SINK_TOKEN.secret, key: SINK_TOKEN.key } } },
            },
          ],
        },
      ],
      inhibitRules: [
        {
          // While vigil cannot poll a target, its own alerts for that target are noise.
          sourceMatch: [alertname('VigilCollectorFailing')],
          targetMatch: [alertname('Secrets.*|Scheduler.*|Teams.*', '=~')],
          equal: ['target'],
        },
      ],
    },
  });
