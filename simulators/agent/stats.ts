import type { AgentModel } from './agent.js';
import { RPC_PORT, goDuration } from './identity.js';

export type StatsSection = Record<string, string>;

/** Raft commits one entry this often, so the indexes visibly advance between two scrapes. */
const RAFT_TICK_MS = 100;
const RAFT_BASE_INDEX = 4_096;
const RAFT_SNAPSHOT_EVERY = 8_192;
const RAFT_TERM = '2';
const HEARTBEAT_TTL_MS = 15_283.4;

/**
 * The stats of /agent/self. As on the real agent the sections depend on the mode: a server brings
 * nomad, raft and serf, a client brings client, both bring runtime. Every value is a string.
 */
export function agentStats(agent: AgentModel, now = Date.now()): Record<string, StatsSection> {
  const stats: Record<string, StatsSection> = { runtime: runtimeStats(agent, now) };
  if (agent.isServer) {
    const raft = raftStats(agent, now);
    stats.nomad = {
      server: 'true',
      leader: String(raft.state === 'Leader'),
      leader_addr: agent.leaderIp && raft.state !== 'Candidate' ? `${agent.leaderIp}:${RPC_PORT}` : '',
      bootstrap: String((agent.pool?.counts().members ?? 1) === 1),
      known_regions: '1',
    };
    stats.raft = raft;
    stats.serf = serfStats(agent);
  }
  if (agent.isClient) {
    stats.client = {
      node_id: agent.nodeId,
      known_servers: agent.knownServers().join(','),
      num_allocations: String(agent.allocations),
      last_heartbeat: goDuration(agent.msSinceHeartbeat(now)),
      heartbeat_ttl: goDuration(HEARTBEAT_TTL_MS),
    };
  }
  return stats;
}

function runtimeStats(agent: AgentModel, now: number): StatsSection {
  const members = agent.pool?.counts().members ?? 0;
  const wobble = Math.floor((now - agent.startedAt) / 1000) % 7;
  return {
    'kernel.name': 'linux',
    arch: 'amd64',
    version: 'go1.22.9',
    max_procs: '8',
    cpu_count: '8',
    goroutines: String(57 + agent.allocations * 12 + Math.floor(members / 4) + wobble),
  };
}

function raftStats(agent: AgentModel, now: number): StatsSection {
  const index = RAFT_BASE_INDEX + Math.floor((now - agent.startedAt) / RAFT_TICK_MS);
  const snapshot = Math.floor(index / RAFT_SNAPSHOT_EVERY) * RAFT_SNAPSHOT_EVERY;
  const peers = agent.pool ? agent.pool.counts().members - agent.pool.counts().left - 1 : 0;
  const state = agent.raftState();
  return {
    state,
    term: RAFT_TERM,
    commit_index: String(index),
    applied_index: String(index),
    last_log_index: String(index),
    last_log_term: RAFT_TERM,
    last_snapshot_index: String(snapshot),
    last_snapshot_term: RAFT_TERM,
    latest_configuration_index: '0',
    fsm_pending: '0',
    // raft reports "0" on the leader; a follower reports the time since it heard from the leader.
    last_contact: state === 'Leader' ? '0' : goDuration(20 + (index % 50) * 1.3),
    num_peers: String(Math.max(0, peers)),
    protocol_version: '3',
    protocol_version_min: '0',
    protocol_version_max: '3',
    snapshot_version_min: '0',
    snapshot_version_max: '1',
    ...agent.raftOverride,
  };
}

function serfStats(agent: AgentModel): StatsSection {
  const counts = agent.pool?.counts() ?? { members: 0, failed: 0, left: 0 };
  return {
    members: String(counts.members),
    failed: String(counts.failed),
    left: String(counts.left),
    health_score: '0',
    member_time: String(agent.pool?.memberTime ?? 1),
    event_time: '1',
    query_time: '1',
    intent_queue: '0',
    event_queue: '0',
    query_queue: '0',
    encrypted: 'false',
    coordinate_resets: '0',
    ...agent.serfOverride,
  };
}
