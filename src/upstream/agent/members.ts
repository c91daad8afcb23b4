import { z } from 'zod';
import { lenient } from '../schema-helpers.js';

/** `GET /v1/agent/members` (servers only): the gossip pool as this server sees it. */
/** A member's name and status are essential (it can be neither told apart nor counted without them). */
const member = z.object({
  Name: z.string(),
  Addr: lenient(z.string()).transform((v) => v ?? ''),
  // Each tag alone: one that is not text is dropped.
  Tags: lenient(z.record(z.string(), z.unknown())).transform((v) =>
    Object.fromEntries(Object.entries(v ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string')),
  ),
  Status: z.string(),
});

export const agentMembersResponse = z.object({
  ServerName: lenient(z.string()),
  ServerRegion: lenient(z.string()),
  ServerDC: lenient(z.string()),
  Members: z
    .array(member)
    .nullish()
    .transform((v) => v ?? []),
});

export type AgentMembers = z.output<typeof agentMembersResponse>;
export type AgentMember = z.output<typeof member>;
