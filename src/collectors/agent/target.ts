import { z } from 'zod';
import { targetFields } from '../../config/fields.js';
import { EVERY_15_SECONDS } from '../../config/schedule.js';
import { switchFields } from '../endpoint.js';
import { AGENT_ENDPOINTS } from './endpoints.js';

/**
 * A cluster agent (server, client or both). `/agent/health` is always polled; each optional endpoint
 * has its own switch (`members`, `servers`, `self`, `host`, `autopilot`), declared with the endpoint.
 */
export const agentTarget = z.strictObject({
  ...targetFields(EVERY_15_SECONDS),
  ...switchFields(AGENT_ENDPOINTS),
  /** Per-member series (member_status, member_info) beyond this many are dropped and counted. */
  max_members: z.number().int().min(0).default(20_000),
  /** Servers this agent should know (a client) or its raft cluster should have (a server); exported for SchedulerAgentServersBelowExpected. */
  expected_servers: z.number().int().min(1).optional(),
});
export type AgentTarget = z.output<typeof agentTarget>;
