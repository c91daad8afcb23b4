import { z } from 'zod';

/** `GET /v1/agent/members` (servers only): the gossip pool as this server sees it. */
const member = z.object({
  Name: z.string(),
  Addr: z.string().default(''),
  Tags: z
    .record(z.string(), z.string())
    .nullish()
    .transform((v) => v ?? {}),
  Status: z.string(),
});

export const agentMembersResponse = z.object({
  ServerName: z.string().optional(),
  ServerRegion: z.string().optional(),
  ServerDC: z.string().optional(),
  Members: z
    .array(member)
    .nullish()
    .transform((v) => v ?? []),
});

export type AgentMembers = z.output<typeof agentMembersResponse>;
export type AgentMember = z.output<typeof member>;
