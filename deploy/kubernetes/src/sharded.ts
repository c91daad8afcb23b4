import { stringify } from 'yaml';
import { vigilYml } from './config.js';
import { DATA_DIR, NAME, NAMESPACE, SELECTOR } from './settings.js';
import { ARGS } from './workload.js';

/**
 * The HA and sharded mode, as a kustomize component over the base: a StatefulSet of SHARDS replicas
 * on one PostgreSQL alert history, each polling the targets of the shard its pod's ordinal names.
 * Only what differs from the base is written here; the component patches the base's objects.
 */

/** Replicas and `--total-shards`: generated into both from here, and a test checks they agree. */
export const SHARDS = 3;

/** The database user's password (a Secret you create), mounted as a file. */
export const POSTGRES_PASSWORD = { secret: 'vigil-postgres', key: 'password', dir: '/etc/vigil/postgres' };
/** The CA that signed the database's certificate (a Secret, as cert-manager and CloudNativePG write it). */
export const POSTGRES_CA = { secret: 'vigil-postgres-ca', key: 'ca.crt', dir: '/etc/vigil/postgres-ca' };
/** The database's host: the one value users set, in the overlay's configMapGenerator, read into vigil.yml through the environment. */
export const DATABASE = { configMap: 'vigil-database', key: 'host', env: 'VIGIL_DB_HOST', example: 'postgres.example.internal' };

/**
 * Sized for the bench's 3x estate (~374,000 series, the largest agents in the field) held by 3
 * shards: ~125,000 series each, the bench's full size, with the figures of docs/performance.md:
 * - memory: RSS 282 MiB after the first collection at full size (the plan run at 30438dd, the
 *   collection in its own thread), and up to 149 MiB more under load (3x: 279 → 428 MiB), so a
 *   peak of 282 + 149 = 431 MiB: 448Mi is requested (at least the peak, as the base does) and
 *   896Mi, twice that, is the limit;
 * - CPU: a full collection at full size costs 0.61 s (the first run, at 52d689a) to 1.78 s (the
 *   plan run, a loaded machine) of CPU, and the secrets and agents are polled every 15 s by default
 *   (teams every 5 min), so 0.61 / 15 = 41m to 1.78 / 15 = 119m on average: 125m is requested. The
 *   collection runs in a thread beside the main one (measured on 2 cores): a limit of 2 cores keeps
 *   scrapes from being throttled while it runs.
 */
export const SHARD_RESOURCES = {
  requests: { cpu: '125m', memory: '448Mi' },
  limits: { cpu: '2', memory: '896Mi' },
};

const spread = (topologyKey: string, whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway') => ({
  maxSkew: 1,
  topologyKey,
  whenUnsatisfiable,
  // Nodes the pod may not run on (a tainted control plane) are no domain to spread over.
  nodeTaintsPolicy: 'Honor',
  labelSelector: { matchLabels: { ...SELECTOR } },
});

/**
 * The StatefulSet, patched (strategic merge): SHARDS replicas started together (shards are
 * independent: Parallel), one per node and spread over zones where there are several; the shard
 * from the pod's name (`vigil-2` → 2); the PostgreSQL password and CA as files; no SQLite volume.
 */
export const statefulSetPatch = () => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: NAME },
  spec: {
    replicas: SHARDS,
    podManagementPolicy: 'Parallel',
    // The history is in PostgreSQL: no claim per pod.
    volumeClaimTemplates: null,
    template: {
      spec: {
        topologySpreadConstraints: [spread('kubernetes.io/hostname', 'DoNotSchedule'), spread('topology.kubernetes.io/zone', 'ScheduleAnyway')],
        containers: [
          {
            name: NAME,
            args: [...ARGS, `--total-shards=${SHARDS}`, '--pod=$(POD_NAME)'],
            env: [
              { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: DATABASE.env, valueFrom: { configMapKeyRef: { name: DATABASE.configMap, key: DATABASE.key } } },
            ],
            resources: SHARD_RESOURCES,
            volumeMounts: [
              { mountPath: DATA_DIR, $patch: 'delete' },
              { name: 'postgres-password', mountPath: POSTGRES_PASSWORD.dir, readOnly: true },
              { name: 'postgres-ca', mountPath: POSTGRES_CA.dir, readOnly: true },
            ],
          },
        ],
        volumes: [
          { name: 'postgres-password', secret: { secretName: POSTGRES_PASSWORD.secret, defaultMode: 0o400 } },
          { name: 'postgres-ca', secret: { secretName: POSTGRES_CA.secret, defaultMode: 0o400 } },
        ],
      },
    },
  },
});

const STORE = `    postgres:
      url: postgres://vigil@\${${DATABASE.env}}:5432/vigil
      password_file: ${POSTGRES_PASSWORD.dir}/${POSTGRES_PASSWORD.key}
      tls: { mode: verify-full, ca_file: ${POSTGRES_CA.dir}/${POSTGRES_CA.key} }
`;

const NOTE = `# Every replica runs this file, every target in it, and polls only its shard's targets: the shard
# count is --total-shards in the StatefulSet's args (with its replicas), not a key here. The sink's
# history is one, in PostgreSQL: any replica accepts any notification (docs/alert-sink.md,
# "Running several replicas"). ${DATABASE.env} comes from the ConfigMap ${DATABASE.configMap}.
`;

export const SHARDED_VIGIL_YML = vigilYml(STORE, NOTE);

export const configMapPatch = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'vigil-config' }, data: { 'vigil.yml': SHARDED_VIGIL_YML } });

const yaml = (v: unknown) => stringify(v, { lineWidth: 0 });

export const shardedComponent = () =>
  `# The HA and sharded mode over the base (deploy/README.md, "Sharded, on PostgreSQL"): include it from
# your overlay with components: [<path to>/deploy/kubernetes-sharded/component], and give the overlay
# the ConfigMap ${DATABASE.configMap} (the database's host) as ../kustomization.yaml does.
${yaml({
  apiVersion: 'kustomize.config.k8s.io/v1alpha1',
  kind: 'Component',
  patches: [
    // By kind and name, so the patches find the base's objects whatever namespace they are in.
    { path: 'statefulset.yaml', target: { kind: 'StatefulSet', name: NAME } },
    { path: 'configmap.yaml', target: { kind: 'ConfigMap', name: 'vigil-config' } },
  ],
})}`;

/** The example overlay: the base, the component, and the database's host (the value users set). */
export const shardedOverlay = () =>
  `# kubectl apply -k deploy/kubernetes-sharded: ${SHARDS} vigil replicas sharing the targets and one
# PostgreSQL alert history (after creating the Secrets: see deploy/README.md). To change the shard
# count, change replicas and --total-shards in component/statefulset.yaml together.
${yaml({
  apiVersion: 'kustomize.config.k8s.io/v1beta1',
  kind: 'Kustomization',
  resources: ['../kubernetes'],
  components: ['component'],
  configMapGenerator: [{ name: DATABASE.configMap, namespace: NAMESPACE, literals: [`${DATABASE.key}=${DATABASE.example}`] }],
})}`;
