import { z } from 'zod';
import { boolish, lenient, statDuration, statNumber, statText } from '../schema-helpers.js';

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
