import { z } from 'zod';
import { boolish, lenient } from '../schema-helpers.js';

/**
 * `GET /v1/agent/health`: one part per mode the agent runs. An unhealthy agent answers 500 with the
 * same body (possibly as text/plain), so the caller passes 500 as a data status.
 */
const healthPart = lenient(z.object({ ok: lenient(boolish), message: lenient(z.string()).transform((m) => m ?? '') }));

/**
 * A part without a readable `ok` is still a part (the agent runs that role) whose health is not
 * said: only that role's series is dropped. A body with no part at all is no health answer.
 */
export const agentHealthResponse = z
  .object({ client: healthPart, server: healthPart })
  // A body with neither part is not a health answer (e.g. another error shaped as JSON).
  .refine((h) => h.client !== undefined || h.server !== undefined, 'expected a client or a server part');

export type AgentHealth = z.output<typeof agentHealthResponse>;
export const HEALTH_ROLES = ['client', 'server'] as const;
