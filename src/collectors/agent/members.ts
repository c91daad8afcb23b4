import { z } from 'zod';
import type { EncodedLines } from '../../metrics/encoded-lines.js';
import { family, single, type AnyFamily, type Family, type Labels, type Sample } from '../../metrics/family.js';
import { SeriesCap } from '../../metrics/series-cap.js';
import { decode } from '../../upstream/decode.js';
import { parseBody, textOf } from '../../upstream/parse.js';
import { lenient, lenientString, lenientTextPick } from '../../upstream/schema-helpers.js';
import type { RenderedGroup } from '../../metrics/render.js';
import { renderGroupEncoded } from '../../metrics/render-bytes.js';
import { offloaded } from '../endpoint.js';
import type { AgentAuth } from './auth.js';
import { fromPoll, optional } from './optional.js';

/** The tags of a member that vigil reads. */
export const MEMBER_TAGS = ['region', 'dc', 'build'] as const;

/** `GET /v1/agent/members` (servers only): the gossip pool as this server sees it. */
/** A member's name and status are essential (it can be neither told apart nor counted without them). */
export const agentMember = z.object({
  Name: z.string(),
  Addr: lenientString.transform((v) => v ?? ''),
  // Only the tags vigil shows (member_info's region, datacenter and build), each alone: one that is not text is dropped.
  Tags: lenientTextPick(MEMBER_TAGS).transform((v) => v ?? {}),
  Status: z.string(),
});

const server = { ServerName: lenient(z.string()), ServerRegion: lenient(z.string()), ServerDC: lenient(z.string()) };

export const agentMembersResponse = z.object({
  ...server,
  Members: z
    .array(agentMember)
    .nullish()
    .transform((v) => v ?? []),
});

/**
 * The same answer with only what every member must carry checked (its name and status: the rest of
 * a member is lenient, so only these can fail it), and each member kept as sent. For a pool larger
 * than the member cap: the members left out are counted by status and never read further, and only
 * those kept are read with `agentMember`.
 */
export const agentMembersEssentials = z.object({
  ...server,
  Members: z
    .array(z.looseObject({ Name: z.string(), Status: z.string() }))
    .nullish()
    .transform((v) => v ?? []),
});

export type AgentMember = z.output<typeof agentMember>;

/**
 * `/agent/members`: the gossip pool a server sees. Pools can hold thousands of members, so every
 * step is one pass over the list, and the per-member series are capped (`max_members`).
 */

const FROM_MEMBERS = fromPoll('members');
export const KNOWN_MEMBER_STATUSES = ['alive', 'failed', 'left'] as const;

/** One poll's members, and those of them that get per-member series. */
export interface MembersView {
  /** Every member, for the counts by status (a pool over the cap is not read further). */
  readonly members: readonly Pick<AgentMember, 'Status'>[];
  readonly kept: readonly AgentMember[];
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
    // stateSet's samples, made straight with the member's label, one at a time as they are rendered: a
    // pool of 20,000 members has 60,000, which as a list outlived the young generation's scavenges.
    samples: function* (v) {
      for (const m of v.kept) for (const status of statesOf(m.Status)) yield { labels: { member: m.Name, status }, value: status === m.Status ? 1 : 0 };
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
    samples: function* (v) {
      for (const m of v.kept) {
        yield { labels: { member: m.Name, address: m.Addr, region: m.Tags.region ?? '', datacenter: m.Tags.dc ?? '', build: m.Tags.build ?? '' }, value: 1 };
      }
    },
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

export const membersFamilies: readonly AnyFamily[] = [...memberPollFamilies, memberSeriesDropped] as readonly AnyFamily[];

/** One `/agent/members` answer as received, and what rendering it needs. */
export interface MembersPollInput {
  /** The body's bytes (moved to a worker thread for a large pool, not copied). */
  body: Uint8Array;
  max: number;
  context: Labels;
}

/**
 * What one poll renders (its lines by family, encoded into one buffer that a worker thread moves
 * back rather than copies), and the counts the target's job keeps across polls.
 */
export interface MembersPoll {
  group: Array<[string, EncodedLines]>;
  members: number;
  dropped: number;
}

/**
 * Decodes, validates and renders one `/agent/members` answer: pure, so that a large one can run
 * on a worker thread and a small one in the collection thread with the same result.
 */
export function membersPoll(input: MembersPollInput): MembersPoll {
  const { view, dropped } = membersView(input);
  return { group: renderGroupEncoded(memberPollFamilies, view, input.context), members: view.members.length, dropped };
}

/**
 * What rendering one answer reads, and how many members it left out, in a frame of its own: the
 * answer as parsed (~7 MB of objects for 20,000 members) is garbage before rendering starts, rather
 * than alive until the poll returns and copied by every scavenge meanwhile.
 */
function membersView(input: MembersPollInput): { view: MembersView; dropped: number } {
  const body = decode(textOf(input.body), membersEndpoint.id);
  const sent = (body as { Members?: unknown } | undefined)?.Members;
  if (!Array.isArray(sent) || sent.length <= input.max) {
    const m = parseBody(agentMembersResponse, body, membersEndpoint.id);
    return { view: { members: m.Members, kept: m.Members }, dropped: 0 };
  }
  // Over the cap: every member is counted, only those kept are read whole (each can no longer fail).
  const m = parseBody(agentMembersEssentials, body, membersEndpoint.id);
  const { kept, dropped } = limitMembers(m.Members, input.max);
  const members = m.Members.map(({ Status }) => ({ Status }));
  return { view: { members, kept: kept.map((k) => agentMember.parse(k)) }, dropped };
}

/** One poll's lines, and the members left out by `max_members` summed over the target's polls. */
export interface MembersResult {
  readonly group: RenderedGroup;
  readonly droppedTotal: number;
}

/**
 * A gossip pool answer at least this large (~1,000 members) is decoded and rendered on a worker
 * thread. Below it the collection thread does it in one turn of a few milliseconds, cheaper than the
 * hand-over.
 */
export const MEMBERS_OFFLOAD_BYTES = 192 * 1024;

/** What the members' call reads of its target's: the cap on per-member series, and the count of members it left out across polls. */
interface MembersCall extends AgentAuth {
  readonly target: { readonly name: string; readonly max_members: number };
  readonly countDropped: (poll: MembersPoll) => MembersResult;
}

/**
 * The gossip pool a server sees: decoded and rendered off the collection thread when large, and, as
 * a pool changes rarely, an unchanged answer's lines reused rather than decoded and rendered again.
 */
export const membersEndpoint = optional('members', {
  path: '/v1/agent/members',
  schema: agentMembersResponse,
  offload: offloaded({
    task: membersPoll,
    from: MEMBERS_OFFLOAD_BYTES,
    input: (body, c: MembersCall) => ({ body, max: c.target.max_members, context: { target: c.target.name, endpoint: 'members' } }),
  }),
  read: async (get, c: MembersCall): Promise<MembersResult> => c.countDropped((await get()).value),
  families: [memberSeriesDropped],
  rendered: { lines: (v: MembersResult) => v.group, families: memberPollFamilies },
  default: true,
  help: 'the servers gossip pool (node:read); one series per member up to max_members',
  needs: 'node:read',
  bounds: [{ items: 'gossip members', key: 'max_members', dropped: 'vigil_agent_member_series_dropped_total' }],
  notApplicable: {
    // An agent that runs no server says so with 500 (`client agent is not a server`) or 501: not the agent being down.
    test: (err) => err.status === 501 || (err.status === 500 && /not a server/i.test(err.message)),
    means: 'the agent runs no server (500 "not a server", or 501)',
  },
});
