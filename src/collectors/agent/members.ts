import { family, single, type Family, type Sample } from '../../metrics/family.js';
import type { AgentMember } from '../../upstream/agent/members.js';
import { SeriesCap } from '../series-cap.js';
import { fromPoll } from './endpoint-up.js';

/**
 * `/agent/members`: the gossip pool a server sees. Pools can hold thousands of members, so every
 * step is one pass over the list, and the per-member series are capped (`max_members`).
 */

const FROM_MEMBERS = fromPoll('members');
export const KNOWN_MEMBER_STATUSES = ['alive', 'failed', 'left'] as const;

/** One poll's members, those of them that get per-member series, and the target's running count of the others. */
export interface MembersView {
  /** Every member, for the counts by status (a pool over the cap is not read further). */
  readonly members: readonly Pick<AgentMember, 'Status'>[];
  readonly kept: readonly AgentMember[];
  readonly droppedTotal: number;
}

/**
 * Picks at most `max` members for per-member series: those that are not alive first (the ones an
 * operator pages on), then alive ones, each in the agent's order.
 */
export function limitMembers<M extends Pick<AgentMember, 'Status'>>(members: readonly M[], max: number): { kept: readonly M[]; dropped: number } {
  if (members.length <= max) return { kept: members, dropped: 0 };
  const cap = new SeriesCap<M>(max, (m) => m.Status !== 'alive');
  for (const m of members) cap.offer(m);
  return { kept: cap.kept(), dropped: cap.dropped };
}

/** The statuses a member has series for: the known ones, and its own when it is another (as `stateSet`). */
const statesOf = (status: string): readonly string[] =>
  (KNOWN_MEMBER_STATUSES as readonly string[]).includes(status) ? KNOWN_MEMBER_STATUSES : [...KNOWN_MEMBER_STATUSES, status];

function countByStatus(members: readonly Pick<AgentMember, 'Status'>[]): Sample[] {
  const counts = new Map<string, number>(KNOWN_MEMBER_STATUSES.map((s) => [s, 0]));
  for (const m of members) counts.set(m.Status, (counts.get(m.Status) ?? 0) + 1);
  return [...counts].map(([status, value]) => ({ labels: { status }, value }));
}

/** The families of one poll alone (rendered off the collection thread for a large pool). */
export const memberPollFamilies: readonly Family<MembersView>[] = [
  family<MembersView>({
    name: 'scheduler_agent_members',
    help: `Gossip members by status (alive, failed and left always, plus any other status seen); ${FROM_MEMBERS}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'status'],
    samples: (v) => countByStatus(v.members),
  }),
  family<MembersView>({
    name: 'scheduler_agent_member_status',
    help: `Status of each gossip member, one series per status (alive, failed, left, plus its own if other), 1 for the current one; at most max_members members, those not alive first; ${FROM_MEMBERS}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'member', 'status'],
    // stateSet's samples, built straight with the member's label: a pool of 20,000 members has 60,000.
    samples: (v) => {
      const out: Sample[] = [];
      for (const m of v.kept) for (const status of statesOf(m.Status)) out.push({ labels: { member: m.Name, status }, value: status === m.Status ? 1 : 0 });
      return out;
    },
  }),
  family<MembersView>({
    name: 'scheduler_agent_member_info',
    help: `Identity of each gossip member (always 1): address, and the region, datacenter and build of its tags; at most max_members members; ${FROM_MEMBERS}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'member', 'address', 'region', 'datacenter', 'build'],
    // The member's own region tag is its identity, named as the agent names it.
    reservedLabelsAllowed: ['region'],
    samples: (v) =>
      v.kept.map((m) => ({
        labels: { member: m.Name, address: m.Addr, region: m.Tags.region ?? '', datacenter: m.Tags.dc ?? '', build: m.Tags.build ?? '' },
        value: 1,
      })),
  }),
];

/** Members left out so far: a counter across polls, kept by the target's job. */
export const memberSeriesDropped: Family<{ readonly droppedTotal: number }> = family<{ readonly droppedTotal: number }>({
  name: 'vigil_agent_member_series_dropped_total',
  help: `Members whose per-member series (member_status, member_info) were left out because the pool exceeded max_members, summed over the scheduled polls of /v1/agent/members since vigil loaded its config.`,
  type: 'counter',
  section: 'agent',
  labels: ['target'],
  samples: single((v) => v.droppedTotal),
});

export const membersFamilies: readonly Family<MembersView>[] = [...memberPollFamilies, memberSeriesDropped];
