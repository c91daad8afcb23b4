import { z } from 'zod';
import { boolish, lenient } from '../schema-helpers.js';

/**
 * `GET /v1/nodes`: one page of the cluster's client nodes (node stubs), forwarded to the servers by
 * any agent. A node's status is essential (it cannot be counted without it); every other field
 * costs only the series it feeds. `NodePool` came with 1.6: older servers leave it out.
 */
const text = lenient(z.string());

export const agentNode = z.object({
  ID: text,
  Name: text,
  Datacenter: text,
  NodeClass: text,
  NodePool: text,
  Status: z.string(),
  SchedulingEligibility: text,
  Drain: lenient(boolish),
  Version: text,
});

export const agentNodesPage = z
  .array(agentNode)
  .nullish()
  .transform((v) => v ?? []);

export type AgentNode = z.output<typeof agentNode>;
