import { z } from 'zod';

/** `GET /v1/agent/servers` (agents with a client part): the servers the client knows, as `ip:port`; Go's nil list is `null`. */
export const agentServersResponse = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);

export type AgentServers = z.output<typeof agentServersResponse>;
