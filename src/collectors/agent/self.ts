import { z } from 'zod';
import { family, single, type Family } from '../../metrics/family.js';
import { boolish, lenient, statDuration, statNumber, statText } from '../../upstream/schema-helpers.js';
import { fromPoll, optional } from './optional.js';

/**
 * `GET /v1/agent/self`: the agent's identity (from its config, falling back to its own pool member)
 * and the stats vigil exports. Every stats value is a string (`"144"`, `"Leader"`, `"never"`), so a
 * stat that is missing or not numeric becomes undefined (absent), never a failure and never 0. The
 * config carries durations as integer nanoseconds; none of them is used, so none is typed here.
 */

/** Older agents send `Version` as a string (with `VersionPrerelease` beside it), newer ones as an object. */
const versionObject = z.object({
  Version: z.string().default(''),
  VersionPrerelease: z.string().nullish(),
  VersionMetadata: z.string().nullish(),
});

const config = z.object({
  NodeName: z.string().optional(),
  Region: z.string().optional(),
  Datacenter: z.string().optional(),
  Version: z.union([z.string(), versionObject]).optional(),
  VersionPrerelease: z.string().nullish(),
  Server: z.object({ Enabled: boolish.optional() }).nullish(),
});

const member = z.object({
  Name: z.string().default(''),
  Tags: z
    .record(z.string(), z.string())
    .nullish()
    .transform((v) => v ?? {}),
});

/** A stats section that may be missing (its mode is off), null, or not a section: absent. */
const section = <S extends z.ZodRawShape>(shape: S) => lenient(z.object(shape));

const schedulerSection = section({ server: statText, leader: statText, leader_addr: statText });

const stats = z.object({
  runtime: section({ goroutines: statNumber }),
  raft: section({
    state: statText,
    num_peers: statNumber,
    commit_index: statNumber,
    applied_index: statNumber,
    last_log_index: statNumber,
    last_contact: statDuration,
  }),
  serf: section({ members: statNumber, failed: statNumber, left: statNumber, health_score: statNumber }),
  client: section({ num_allocations: statNumber }),
  // The scheduler's own section is named after the product (`nomad`) on real agents.
  nomad: schedulerSection,
  scheduler: schedulerSection,
});

function versionText(c: z.output<typeof config> | undefined): string | undefined {
  const v = c?.Version;
  if (v === undefined) return undefined;
  if (typeof v === 'string') return c?.VersionPrerelease ? `${v}-${c.VersionPrerelease}` : v;
  return `${v.Version}${v.VersionPrerelease ? `-${v.VersionPrerelease}` : ''}${v.VersionMetadata ? `+${v.VersionMetadata}` : ''}`;
}

export const agentSelfResponse = z
  .object({
    // None of the three is essential: an unreadable one drops only the series it feeds.
    config: lenient(config),
    member: lenient(member),
    stats: lenient(stats).transform((v) => v ?? stats.parse({})),
  })
  .transform(({ config: c, member: m, stats: s }) => {
    const scheduler = s.nomad ?? s.scheduler;
    return {
      name: c?.NodeName || m?.Name || '',
      region: c?.Region ?? m?.Tags.region ?? '',
      datacenter: c?.Datacenter ?? m?.Tags.dc ?? '',
      version: versionText(c ?? undefined) ?? m?.Tags.build ?? '',
      /** Runs a server part: from the config, else from the stats sections only servers have. */
      server: c?.Server?.Enabled ?? (scheduler?.server !== undefined ? scheduler.server === 'true' : s.raft !== undefined),
      /** The raft leader's address as this server knows it; '' when it knows none (an election); absent on clients and older agents. */
      leaderAddress: scheduler?.leader_addr,
      raft: s.raft,
      serf: s.serf,
      client: s.client,
      runtime: s.runtime,
    };
  });

export type AgentSelf = z.output<typeof agentSelfResponse>;

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

export const selfEndpoint = optional('self', {
  path: '/v1/agent/self',
  schema: agentSelfResponse,
  needs: 'agent:read',
  families: selfFamilies,
  default: true,
  help: 'raft, gossip and runtime stats, and the build (agent:read)',
});
