import { family, single, type Family } from '../../metrics/family.js';
import type { AgentSelf } from '../../upstream/agent/self.js';
import { fromPoll } from './endpoint-up.js';

/**
 * `/agent/self`: the agent's identity and the stats of its raft, gossip, client and runtime
 * sections. A section the agent does not have (a client has no raft) leaves its series absent.
 */

const FROM_SELF = fromPoll('self');

/** A single-series gauge per target; `value` returns undefined for "absent". */
const statGauge = (name: string, help: string, value: (s: AgentSelf) => number | boolean | undefined): Family<AgentSelf> =>
  family<AgentSelf>({ name, help: `${help}; ${FROM_SELF}.`, type: 'gauge', section: 'agent', labels: ['target'], samples: single(value) });

export const selfFamilies: readonly Family<AgentSelf>[] = [
  family<AgentSelf>({
    name: 'scheduler_agent_info',
    help: `Identity of the agent (always 1): node name, region, datacenter, version, and whether it runs a server part; ${FROM_SELF}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'name', 'region', 'datacenter', 'version', 'server'],
    // The agent's own region is its identity, named as the agent names it.
    reservedLabelsAllowed: ['region'],
    samples: (s) => [{ labels: { name: s.name, region: s.region, datacenter: s.datacenter, version: s.version, server: String(s.server) }, value: 1 }],
  }),
  statGauge(
    'scheduler_agent_raft_leader',
    '1 when this server is the raft leader (stats.raft.state is Leader), else 0; absent on an agent without raft',
    (s) => (s.raft?.state === undefined ? undefined : s.raft.state === 'Leader'),
  ),
  statGauge(
    'scheduler_agent_raft_leader_known',
    '1 when this server knows a raft leader (stats.nomad.leader_addr is set; a leader knows itself), 0 when it knows none (an election is under way or lost); absent when the agent does not report it',
    (s) => (s.leaderAddress === undefined ? undefined : s.leaderAddress !== ''),
  ),
  statGauge('scheduler_agent_raft_peers', 'Raft peers this server knows (stats.raft.num_peers)', (s) => s.raft?.num_peers),
  statGauge('scheduler_agent_raft_commit_index', 'Index of the last committed raft log entry (stats.raft.commit_index)', (s) => s.raft?.commit_index),
  statGauge(
    'scheduler_agent_raft_applied_index',
    'Index of the last raft log entry applied to the state machine (stats.raft.applied_index)',
    (s) => s.raft?.applied_index,
  ),
  statGauge('scheduler_agent_raft_last_log_index', 'Index of the last entry in the raft log (stats.raft.last_log_index)', (s) => s.raft?.last_log_index),
  statGauge(
    'scheduler_agent_raft_last_contact_seconds',
    'Seconds since this server last heard from the raft leader (0 on the leader); absent when it never has (stats.raft.last_contact)',
    (s) => s.raft?.last_contact,
  ),
  statGauge('scheduler_agent_serf_members', 'Members of the gossip pool this agent sees (stats.serf.members)', (s) => s.serf?.members),
  statGauge('scheduler_agent_serf_failed', 'Gossip members this agent sees as failed (stats.serf.failed)', (s) => s.serf?.failed),
  statGauge('scheduler_agent_serf_left', 'Gossip members this agent sees as left (stats.serf.left)', (s) => s.serf?.left),
  statGauge('scheduler_agent_serf_health_score', 'Gossip health score of this agent, 0 is best (stats.serf.health_score)', (s) => s.serf?.health_score),
  statGauge(
    'scheduler_agent_client_allocations',
    'Allocations the client part of the agent runs (stats.client.num_allocations)',
    (s) => s.client?.num_allocations,
  ),
  statGauge('scheduler_agent_runtime_goroutines', 'Goroutines of the agent process (stats.runtime.goroutines)', (s) => s.runtime?.goroutines),
];
