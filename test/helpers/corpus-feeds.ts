/**
 * Which series each key of an answer feeds, per endpoint, written from the catalog's help texts and
 * the upstream specs (not from the code under test). A pattern is a dotted key path; `*` stands for
 * one key or array index, and a trailing `.**` for the key and everything under it. A key that no
 * pattern names feeds nothing: changing it must change no series.
 *
 * `essential` keys are those without which an answer cannot be understood at all: changing one may
 * fail the part, with reason `schema` and no other. Every other key costs at most its own series.
 */
export interface Feeds {
  essential: string[];
  feeds: Record<string, string[]>;
}

import { AGENT_FEEDS, TEAMS_FEEDS } from './corpus-feeds-agent-teams.js';
import { WORKLOAD_FEEDS, workloadAlarming } from './corpus-feeds-workload.js';

const RS = 'secrets_replication_';
const SECONDARY = [
  'secondary_connected',
  'secondary_last_heartbeat_timestamp_seconds',
  'secondary_primary_canary_age_seconds',
  'secondary_clock_skew_seconds',
  'secondary_last_heartbeat_duration_seconds',
  'secondary_connection_state',
].map((n) => RS + n);
const PRIMARY = [
  'primary_connected',
  'primary_last_heartbeat_timestamp_seconds',
  'primary_canary_age_seconds',
  'primary_clock_skew_seconds',
  'primary_last_heartbeat_duration_seconds',
].map((n) => RS + n);

const status: Feeds = {
  essential: ['data', 'data.mode'],
  feeds: {
    'data.cluster_id': [`${RS}info`],
    'data.state': [`${RS}state`],
    'data.known_secondaries.**': [`${RS}known_secondaries`, `${RS}secondary_connected`],
    'data.last_wal': [`${RS}last_wal`],
    'data.last_remote_wal': [`${RS}last_remote_wal`],
    'data.corrupted_merkle_tree': [`${RS}merkle_tree_corrupted`],
    'data.last_corruption_check_epoch': [`${RS}last_corruption_check_timestamp_seconds`],
    'data.last_reindex_epoch': [`${RS}last_reindex_timestamp_seconds`],
    'data.connection_state': [`${RS}connection_state`],
    'data.secondaries': [`${RS}secondaries_reported`, ...SECONDARY],
    // An entry that is no object makes the list unreadable: connections not reported, not "disconnected".
    'data.secondaries.*': [`${RS}secondaries_reported`, ...SECONDARY],
    'data.secondaries.*.node_id': SECONDARY,
    'data.secondaries.*.connection_status': [`${RS}secondary_connected`],
    'data.secondaries.*.last_heartbeat': [`${RS}secondary_last_heartbeat_timestamp_seconds`],
    'data.secondaries.*.replication_primary_canary_age_ms': [`${RS}secondary_primary_canary_age_seconds`],
    'data.secondaries.*.clock_skew_ms': [`${RS}secondary_clock_skew_seconds`],
    'data.secondaries.*.last_heartbeat_duration_ms': [`${RS}secondary_last_heartbeat_duration_seconds`],
    'data.secondaries.*.connection_state': [`${RS}secondary_connection_state`],
    'data.primaries.**': PRIMARY,
  },
};

const ATTEMPT = 'secrets_dr_operation_token_attempt_';
const OPEN = ['started', 'progress', 'pgp', 'first_seen_timestamp_seconds'].map((n) => ATTEMPT + n);

/**
 * Times vigil observes rather than reads from the answer (when it first saw an open attempt): each
 * scrape of the corpus is a new run, so they differ between any two scrapes.
 */
export const OBSERVED_BY_VIGIL = new Set([`${ATTEMPT}first_seen_timestamp_seconds`]);

const SEAL_BACKEND = ['secrets_node_seal_backend_healthy', 'secrets_node_seal_backend_unhealthy_since_timestamp_seconds'];
/** What the HA status says of a node, and what goes by the name it gives the node: the active node's series. */
const HA_NAMED = ['secrets_node_clock_skew_seconds', 'secrets_node_last_echo_timestamp_seconds', 'secrets_active_node_info'];
const RAFT_SERVER = ['secrets_raft_server_healthy', 'secrets_raft_server_status', 'secrets_raft_server_last_contact_seconds', 'secrets_raft_server_index_lag'];
/** Autopilot answers in snake_case, and in CamelCase before 1.9; inside `data` from the servers. */
const autopilotFeeds = (key: (snake: string, camel: string) => string[]): Record<string, string[]> => ({
  ...Object.fromEntries(
    (
      [
        ['healthy', 'Healthy', ['secrets_raft_autopilot_healthy']],
        ['failure_tolerance', 'FailureTolerance', ['secrets_raft_failure_tolerance']],
        ['optimistic_failure_tolerance', 'OptimisticFailureTolerance', ['secrets_raft_optimistic_failure_tolerance']],
        // The leader's last index is what every server's lag is counted from.
        ['leader', 'Leader', ['secrets_raft_server_index_lag']],
        ['voters', 'Voters', ['secrets_raft_voters']],
        ['voters.*', 'Voters.*', ['secrets_raft_voters']],
        ['servers.*', 'Servers.*', [...RAFT_SERVER, 'secrets_raft_voters']],
        ['servers.*.id', 'Servers.*.ID', RAFT_SERVER],
        ['servers.*.healthy', 'Servers.*.Healthy', ['secrets_raft_server_healthy']],
        ['servers.*.status', 'Servers.*.Status', ['secrets_raft_server_status', 'secrets_raft_server_index_lag', 'secrets_raft_voters']],
        ['servers.*.last_contact', 'Servers.*.LastContact', ['secrets_raft_server_last_contact_seconds']],
        ['servers.*.last_index', 'Servers.*.LastIndex', ['secrets_raft_server_index_lag']],
      ] as const
    ).flatMap(([snake, camel, families]) => key(snake, camel).map((k) => [k, [...families]])),
  ),
});

const SNAP_SUCCESS = 'secrets_raft_snapshot_last_success_timestamp_seconds';
const SNAP_ERROR = 'secrets_raft_snapshot_last_error_info';

/** Keyed by the endpoint's id, as the collectors declare it. */
export const FEEDS: Record<string, Feeds> = {
  'secrets/replication-status': status,
  // Whether an attempt is open comes from started and complete together; an unknown one exports none of its series.
  'secrets/dr-operation-token-attempt': {
    essential: [],
    feeds: {
      started: OPEN,
      complete: OPEN,
      progress: [`${ATTEMPT}progress`],
      required: [`${ATTEMPT}required`],
      pgp_fingerprint: [`${ATTEMPT}pgp`],
      nonce: [`${ATTEMPT}first_seen_timestamp_seconds`],
    },
  },
  // The renewable flag is exported only beside an expiry; the token itself (`id`) and its accessor feed nothing.
  'secrets/token-lookup-self': {
    essential: ['data'],
    feeds: {
      'data.expire_time': ['secrets_token_expiry_timestamp_seconds', 'secrets_token_renewable', 'secrets_token_renewed_timestamp_seconds'],
      'data.renewable': ['secrets_token_renewable'],
      'data.issue_time': ['secrets_token_renewed_timestamp_seconds'],
      'data.last_renewal_time': ['secrets_token_renewed_timestamp_seconds'],
    },
  },
  // Only the status of the audited request tells: no key of its body feeds anything.
  'secrets/audited-request': { essential: [], feeds: {} },
  'secrets/node-audited-request': { essential: [], feeds: {} },
  'secrets/merkle-check': {
    essential: ['data', 'data.merkle_corruption_report'],
    feeds: {
      'data.merkle_corruption_report.corrupted_root': ['secrets_merkle_corrupted_root'],
      'data.merkle_corruption_report.corrupted_tree_map.**': [
        'secrets_merkle_corrupted_trees',
        'secrets_merkle_corrupted_pages',
        'secrets_merkle_corrupted_subpages',
        'secrets_merkle_tree_series_dropped',
      ],
      'data.merkle_corruption_report.last_corruption_check_epoch': ['secrets_merkle_last_check_timestamp_seconds'],
    },
  },
  // A node's role comes from its status code; the flags only where the code is 200.
  'secrets/node-health': {
    essential: [],
    feeds: {
      initialized: ['secrets_node_initialized', 'secrets_node_role'],
      sealed: ['secrets_node_sealed', 'secrets_node_role'],
      standby: ['secrets_node_role'],
      performance_standby: ['secrets_node_role'],
      replication_dr_mode: ['secrets_node_role'],
      removed_from_cluster: ['secrets_node_role'],
      version: ['secrets_node_info'],
      cluster_name: ['secrets_node_info'],
      license: ['secrets_license_expiry_timestamp_seconds'],
      'license.expiry_time': ['secrets_license_expiry_timestamp_seconds'],
    },
  },
  // The node list is what the answer is for (an entry that is no node is not understood); each node's fields cost only its own series.
  // Each field feeds its own series; the seal's info reads three of them, each as a label.
  'secrets/seal-status': {
    essential: [],
    feeds: {
      t: ['secrets_node_unseal_threshold'],
      n: ['secrets_node_unseal_shares'],
      progress: ['secrets_node_unseal_progress'],
      type: ['secrets_node_seal_info'],
      recovery_seal: ['secrets_node_seal_info'],
      storage_type: ['secrets_node_seal_info'],
    },
  },
  // A backend is told apart by its name; its unhealthy_since is shown only while it is unhealthy.
  'secrets/seal-backend-status': {
    essential: [],
    feeds: {
      healthy: ['secrets_node_seal_backends_healthy'],
      backends: SEAL_BACKEND,
      'backends.*': SEAL_BACKEND,
      'backends.*.name': SEAL_BACKEND,
      'backends.*.healthy': SEAL_BACKEND,
      'backends.*.unhealthy_since': ['secrets_node_seal_backend_unhealthy_since_timestamp_seconds'],
    },
  },
  'secrets/ha-status': {
    essential: ['Nodes', 'Nodes.*', 'nodes', 'nodes.*', 'data', 'data.nodes', 'data.nodes.*'],
    // Read in the node poll's derived part (the answers' fixtures name it), each node's series by its name.
    feeds: {
      Nodes: HA_NAMED,
      'Nodes.*': HA_NAMED,
      'Nodes.*.api_address': HA_NAMED,
      'Nodes.*.hostname': HA_NAMED,
      'Nodes.*.active_node': ['secrets_active_node_info'],
      'Nodes.*.clock_skew_ms': ['secrets_node_clock_skew_seconds'],
      'Nodes.*.last_echo': ['secrets_node_last_echo_timestamp_seconds'],
    },
  },
  // Read from the node poll's derived part: the active node the leader names.
  'secrets/leader': { essential: [], feeds: { ha_enabled: ['secrets_active_node_info'], leader_address: ['secrets_active_node_info'] } },
  'secrets/raft-autopilot-state': {
    essential: ['servers', 'servers.*', 'Servers', 'Servers.*', 'data', 'data.servers', 'data.servers.*'],
    feeds: autopilotFeeds((snake, camel) => [snake, camel, `data.${snake}`]),
  },
  // The last success is the last attempt's end when neither its error nor a count of errors says it failed.
  'secrets/raft-snapshot-status': {
    essential: ['data'],
    feeds: {
      'data.last_snapshot_end': [SNAP_SUCCESS],
      'data.last_snapshot_error': [SNAP_SUCCESS, SNAP_ERROR],
      'data.consecutive_errors': [SNAP_SUCCESS, SNAP_ERROR, 'secrets_raft_snapshot_consecutive_errors'],
      'data.next_snapshot_start': ['secrets_raft_snapshot_next_start_timestamp_seconds'],
    },
  },
  // The names listed are what the status calls are made for: the listing's own part exports nothing.
  'secrets/raft-snapshot-configs': { essential: ['data'], feeds: {} },
  ...AGENT_FEEDS,
  ...WORKLOAD_FEEDS,
  ...TEAMS_FEEDS,
};

/** Whether `path` (dotted) matches `pattern`. */
export function matches(pattern: string, path: string): boolean {
  const p = pattern.split('.');
  const k = path.split('.');
  const deep = p[p.length - 1] === '**';
  const head = deep ? p.slice(0, -1) : p;
  if (deep ? k.length < head.length : k.length !== head.length) return false;
  return head.every((seg, i) => seg === '*' || seg === k[i]);
}

export const fedBy = (f: Feeds, path: string): Set<string> =>
  new Set(Object.entries(f.feeds).flatMap(([pattern, families]) => (matches(pattern, path) ? families : [])));

export const isEssential = (f: Feeds, path: string): boolean => f.essential.some((p) => matches(p, path));

/**
 * Mutations that are themselves a real answer with its own meaning, so the page they cause is right:
 * `secondaries: null` is Go's empty list, sent by a primary none of whose secondaries is connected.
 */
export const MEANINGFUL = new Set(['data.secondaries null']);

/** Series whose value would page: a disconnection, an unhealthy agent, a failed member, a corruption. */
export function alarming(key: string, value: number): boolean {
  if (/^secrets_replication_(secondary|primary)_connected\{/.test(key)) return value === 0;
  if (key.startsWith('scheduler_agent_health_ok{')) return value === 0;
  if (key.startsWith('scheduler_agent_known_servers')) return value === 0;
  if (key.startsWith('scheduler_agent_member_status{') && key.includes('status="failed"')) return value === 1;
  if (/^secrets_(merkle_corrupted|replication_merkle_tree_corrupted)/.test(key)) return value > 0;
  if (key.startsWith('secrets_node_sealed')) return value === 1;
  if (/^secrets_node_seal_backends?_healthy\b/.test(key)) return value === 0;
  if (/^secrets_raft_(autopilot_healthy|failure_tolerance|server_healthy)\b/.test(key)) return value === 0;
  return workloadAlarming(key, value);
}
