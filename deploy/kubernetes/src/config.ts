import { ConfigMap, Namespace } from 'kubernetes-models/v1';
import { DATA_DIR, LABELS, NAMESPACE, PORT, SINK_TOKEN, UPSTREAM_TOKENS, meta } from './settings.js';

/** vigil's pod meets the restricted Pod Security Standard: the namespace enforces it. */
export const namespace = () =>
  new Namespace({
    metadata: {
      name: NAMESPACE,
      labels: { ...LABELS, ...Object.fromEntries(['enforce', 'audit', 'warn'].map((mode) => [`pod-security.kubernetes.io/${mode}`, 'restricted'])) },
    },
  });

/**
 * vigil.yml: the sink on, no targets yet (users add theirs, README "Configuration"). `store` is the
 * alert_sink.store block, indented under it; `note` a comment about the file as a whole. The
 * base and the sharded overlay differ only in these, so everything else is written once.
 */
export const vigilYml = (store: string, note = '') => `# vigil configuration (README "Configuration"). After a change: kubectl apply -k, then
# kubectl -n ${NAMESPACE} rollout restart statefulset/vigil (with --web.enable-lifecycle in the
# container's args, POST /-/reload instead).
${note}web:
  listen_address: 0.0.0.0:${PORT}

alert_sink:
  bearer_token_file: ${SINK_TOKEN.dir}/${SINK_TOKEN.key}
  store:
${store}
# Token files come from the optional Secret ${UPSTREAM_TOKENS.secret}, mounted at ${UPSTREAM_TOKENS.dir}.
secrets: []
#  - name: dr-primary
#    address: https://secrets-a.example:8200
#    token_file: ${UPSTREAM_TOKENS.dir}/secrets-token
agents: []
teams: []
`;

/** One replica's SQLite file, on the StatefulSet's volume. */
export const VIGIL_YML = vigilYml(`    path: ${DATA_DIR}/alerts.db\n`);

export const configMap = () => new ConfigMap({ metadata: meta('vigil-config'), data: { 'vigil.yml': VIGIL_YML } });
