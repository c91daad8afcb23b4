import { z } from 'zod';
import { lenient, lenientString, lenientTextPick } from '../schema-helpers.js';

/** The tags of a member that vigil reads. */
export const MEMBER_TAGS = ['region', 'dc', 'build'] as const;

/** `GET /v1/agent/members` (servers only): the gossip pool as this server sees it. */
/** A member's name and status are essential (it can be neither told apart nor counted without them). */
const member = z.object({
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
    .array(member)
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

export const agentMember = member;

export type AgentMembers = z.output<typeof agentMembersResponse>;
export type AgentMember = z.output<typeof member>;
