import { StatefulSet } from 'kubernetes-models/apps/v1';
import { CONFIG_DIR, DATA_DIR, IMAGE, LABELS, NAME, PORT, PORT_NAME, RESOURCES, SELECTOR, SINK_TOKEN, UPSTREAM_TOKENS, USER_ID, meta } from './settings.js';

/** The container's arguments; the sharded overlay adds its shard flags to these. */
export const ARGS = [`--config.file=${CONFIG_DIR}/vigil.yml`, `--web.listen-address=0.0.0.0:${PORT}`, '--log.format=json'];

/**
 * A StatefulSet of one: the alert sink keeps its history in one SQLite file, which takes a single
 * writer on a ReadWriteOnce volume. The StatefulSet gives the pod its own claim and never starts
 * the replacement before the old pod is gone, where a Deployment's rolling update would start a
 * second pod on the same volume (and hang on attaching it, or write the file from two processes).
 */
export const statefulSet = () =>
  new StatefulSet({
    metadata: meta(NAME),
    spec: {
      replicas: 1,
      serviceName: NAME,
      selector: { matchLabels: SELECTOR },
      template: {
        metadata: { labels: LABELS },
        spec: {
          automountServiceAccountToken: false,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: USER_ID,
            runAsGroup: USER_ID,
            // Makes the volume writable by vigil's user.
            fsGroup: USER_ID,
            fsGroupChangePolicy: 'OnRootMismatch',
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: NAME,
              image: IMAGE,
              args: ARGS,
              ports: [{ name: PORT_NAME, containerPort: PORT, protocol: 'TCP' }],
              resources: RESOURCES,
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              startupProbe: { httpGet: { path: '/healthz', port: PORT_NAME }, periodSeconds: 2, failureThreshold: 30 },
              livenessProbe: { httpGet: { path: '/healthz', port: PORT_NAME }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 },
              readinessProbe: { httpGet: { path: '/readyz', port: PORT_NAME }, periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 3 },
              volumeMounts: [
                { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
                { name: 'sink-token', mountPath: SINK_TOKEN.dir, readOnly: true },
                { name: 'upstream-tokens', mountPath: UPSTREAM_TOKENS.dir, readOnly: true },
                { name: 'data', mountPath: DATA_DIR },
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: 'vigil-config' } },
            // Secrets reach vigil only as files (0400), never as environment variables.
            { name: 'sink-token', secret: { secretName: SINK_TOKEN.secret, defaultMode: 0o400 } },
            { name: 'upstream-tokens', secret: { secretName: UPSTREAM_TOKENS.secret, defaultMode: 0o400, optional: true } },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data', labels: LABELS },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    },
  });
