import { Service } from 'kubernetes-models/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ALERTMANAGER_PODS, NAME, PORT, PORT_NAME, PROMETHEUS_PODS, SELECTOR, meta } from './settings.js';

export const service = () =>
  new Service({
    metadata: meta(NAME),
    spec: { selector: SELECTOR, ports: [{ name: PORT_NAME, port: PORT, targetPort: PORT_NAME, protocol: 'TCP' }] },
  });

/**
 * Only Prometheus (scrapes /metrics) and Alertmanager (posts to the sink) may connect, from any
 * namespace. Kubelet probes are not subject to NetworkPolicy. Egress stays open: the upstreams
 * are wherever the config points.
 */
export const networkPolicy = () =>
  new NetworkPolicy({
    metadata: meta(NAME),
    spec: {
      podSelector: { matchLabels: SELECTOR },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            { namespaceSelector: {}, podSelector: { matchLabels: PROMETHEUS_PODS } },
            { namespaceSelector: {}, podSelector: { matchLabels: ALERTMANAGER_PODS } },
          ],
          ports: [{ port: PORT, protocol: 'TCP' }],
        },
      ],
    },
  });

/**
 * maxUnavailable 1 fits both layouts. One replica (one SQLite writer): a node drain may move vigil
 * instead of blocking forever. Three shards (deploy/kubernetes-sharded): a drain takes one shard
 * at a time, and its targets go unpolled only until its pod is back.
 */
export const podDisruptionBudget = () =>
  new PodDisruptionBudget({
    metadata: meta(NAME),
    spec: { maxUnavailable: 1, selector: { matchLabels: SELECTOR } },
  });
