import type { Feeds } from './corpus-feeds.js';

/** The feeds tables of the cluster agent's and the team service's endpoints (corpus-feeds.ts says how they are read). */
const stat = (section: string, key: string, family: string) => ({ [`stats.${section}.${key}`]: [`scheduler_agent_${family}`] });
const RAFT = ['raft_leader', 'raft_peers', 'raft_commit_index', 'raft_applied_index', 'raft_last_log_index', 'raft_last_contact_seconds'].map(
  (n) => `scheduler_agent_${n}`,
);
const SERF = ['serf_members', 'serf_failed', 'serf_left', 'serf_health_score'].map((n) => `scheduler_agent_${n}`);
const INFO = ['scheduler_agent_info'];

const self: Feeds = {
  essential: [],
  feeds: {
    'config.**': INFO,
    'member.**': INFO,
    stats: [...INFO, ...RAFT, ...SERF, 'scheduler_agent_raft_leader_known', 'scheduler_agent_client_allocations', 'scheduler_agent_runtime_goroutines'],
    // Without a config, whether the agent runs a server is read from the raft and scheduler sections.
    'stats.raft': [...RAFT, ...INFO],
    ...stat('raft', 'state', 'raft_leader'),
    ...stat('raft', 'num_peers', 'raft_peers'),
    ...stat('raft', 'commit_index', 'raft_commit_index'),
    ...stat('raft', 'applied_index', 'raft_applied_index'),
    ...stat('raft', 'last_log_index', 'raft_last_log_index'),
    ...stat('raft', 'last_contact', 'raft_last_contact_seconds'),
    'stats.serf': SERF,
    ...stat('serf', 'members', 'serf_members'),
    ...stat('serf', 'failed', 'serf_failed'),
    ...stat('serf', 'left', 'serf_left'),
    ...stat('serf', 'health_score', 'serf_health_score'),
    'stats.client.**': ['scheduler_agent_client_allocations'],
    'stats.runtime.**': ['scheduler_agent_runtime_goroutines'],
    'stats.nomad': [...INFO, 'scheduler_agent_raft_leader_known'],
    'stats.nomad.server': INFO,
    'stats.nomad.leader_addr': ['scheduler_agent_raft_leader_known'],
  },
};

const LICENSE = ['scheduler_license_expiry_timestamp_seconds', 'scheduler_license_termination_timestamp_seconds'];
const HOST = ['scheduler_agent_host_disk_size_bytes', 'scheduler_agent_host_disk_used_bytes'];
const AP = 'scheduler_agent_autopilot_';
const AP_SERVER = ['server_healthy', 'server_voter', 'server_leader', 'server_last_contact_seconds', 'server_index_lag', 'server_status', 'server_info'].map(
  (n) => AP + n,
);
const MEMBERS = ['scheduler_agent_members', 'scheduler_agent_member_status', 'scheduler_agent_member_info'];
const NODE = ['scheduler_node_status', 'scheduler_node_draining'];
const NODES = ['scheduler_nodes', ...NODE];
const TEAM = [
  'teams_organization_teams',
  'teams_team_users',
  'teams_team_info',
  'teams_organization_access_teams',
  'teams_organization_access_reported_teams',
  'teams_team_access_inconsistent',
];
const ACCESS = ['teams_organization_access_teams', 'teams_organization_access_reported_teams', 'teams_team_access_inconsistent'];
const team = (prefix: string): Record<string, string[]> => ({
  [`${prefix}.attributes.users-count`]: ['teams_team_users'],
  [`${prefix}.attributes.visibility`]: ['teams_organization_teams', 'teams_team_info'],
  [`${prefix}.attributes.sso-team-id`]: ['teams_team_info'],
  [`${prefix}.attributes.organization-access.**`]: ACCESS,
});
const TEAM_ESSENTIAL = (p: string) => [p, `${p}.id`, `${p}.type`, `${p}.attributes`, `${p}.attributes.name`];

export const AGENT_FEEDS: Record<string, Feeds> = {
  // A body with neither a client nor a server part is no health answer.
  'agent/health': { essential: ['client', 'server'], feeds: { 'client.**': ['scheduler_agent_health_ok'], 'server.**': ['scheduler_agent_health_ok'] } },
  'agent/members': {
    // A member without a name cannot be told apart; without a status it cannot be counted.
    essential: ['Members', 'Members.*', 'Members.*.Name', 'Members.*.Status'],
    feeds: { Members: MEMBERS, 'Members.*': MEMBERS, 'Members.*.Addr': ['scheduler_agent_member_info'], 'Members.*.Tags.**': ['scheduler_agent_member_info'] },
  },
  // A list of addresses with one that is not an address is not understood (and must not read as fewer servers).
  'agent/servers': { essential: ['*'], feeds: { '*': ['scheduler_agent_known_servers'] } },
  'agent/self': self,
  // Only the expiry is read: SecretID and AccessorID feed nothing, and must never be shown.
  'agent/token': {
    essential: [],
    feeds: {
      ExpirationTime: ['scheduler_agent_token_expiry_timestamp_seconds', 'scheduler_agent_token_created_timestamp_seconds'],
      CreateTime: ['scheduler_agent_token_created_timestamp_seconds'],
    },
  },
  // Only the id, product, expiry and termination are read: the customer and installation ids, flags, modules and features feed nothing.
  'agent/license': {
    essential: [],
    feeds: {
      License: [...LICENSE, 'scheduler_license_info'],
      'License.ExpirationTime': ['scheduler_license_expiry_timestamp_seconds'],
      'License.TerminationTime': ['scheduler_license_termination_timestamp_seconds'],
      'License.LicenseID': ['scheduler_license_info'],
      'License.Product': ['scheduler_license_info'],
    },
  },
  'agent/host': { essential: ['HostData'], feeds: { HostData: HOST, 'HostData.Disk.**': HOST, 'Disk.**': HOST } },
  // A node without a status cannot be counted; every other field costs the series it labels.
  'agent/nodes': {
    essential: ['*', '*.Status'],
    feeds: {
      '*': NODES,
      '*.ID': NODE,
      '*.Name': NODE,
      '*.Datacenter': NODES,
      '*.NodePool': NODES,
      '*.NodeClass': NODES,
      '*.SchedulingEligibility': ['scheduler_nodes', 'scheduler_node_status'],
      // Whether a node drains decides whether it gets series of its own.
      '*.Drain': NODES,
    },
  },
  // A server without a name or id cannot be told apart: it is dropped alone (and the voters are then not counted).
  'agent/autopilot': {
    essential: [],
    feeds: {
      Healthy: [`${AP}healthy`],
      FailureTolerance: [`${AP}failure_tolerance`],
      Leader: [`${AP}leader_changes_total`],
      Voters: [`${AP}voters`],
      Servers: [...AP_SERVER, `${AP}voters`, `${AP}leader_changes_total`],
      'Servers.*': [...AP_SERVER, `${AP}voters`, `${AP}leader_changes_total`],
      'Servers.*.ID': [...AP_SERVER, `${AP}leader_changes_total`],
      'Servers.*.Name': AP_SERVER,
      'Servers.*.Address': [`${AP}server_info`],
      'Servers.*.Version': [`${AP}server_info`],
      'Servers.*.SerfStatus': [`${AP}server_status`],
      'Servers.*.Leader': [`${AP}server_leader`, `${AP}server_index_lag`, `${AP}leader_changes_total`],
      'Servers.*.LastContact': [`${AP}server_last_contact_seconds`],
      'Servers.*.LastIndex': [`${AP}server_index_lag`],
      'Servers.*.Healthy': [`${AP}server_healthy`],
      'Servers.*.Voter': [`${AP}server_voter`, `${AP}voters`],
    },
  },
};

export const TEAMS_FEEDS: Record<string, Feeds> = {
  'teams/list': {
    // Pagination is essential: a misread page link would end the listing early and undercount teams.
    essential: ['data', ...TEAM_ESSENTIAL('data.*'), 'links.**', 'meta.**'],
    feeds: { ...team('data.*'), 'data.*': TEAM, 'links.**': ['teams_listing_pages'], 'meta.**': ['teams_listing_pages'] },
  },
  'teams/show': { essential: TEAM_ESSENTIAL('data'), feeds: { ...team('data'), data: TEAM } },
};
