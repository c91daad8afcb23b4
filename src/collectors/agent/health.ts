import { z } from 'zod';
import { family, upFamily, type Family } from '../../metrics/family.js';
import { boolish, lenient } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';
import { fromPoll } from './optional.js';

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

/** `/agent/health`: is the agent there, and is each of its parts (client, server) healthy. */

export const agentUp = upFamily({
  name: 'scheduler_agent_up',
  help: `1 when the agent answered /v1/agent/health with a health body (200, or 500 when unhealthy), else 0; ${fromPoll('health')}.`,
  section: 'agent',
  labels: ['target'],
});

export const healthFamilies: readonly Family<AgentHealth>[] = [
  family<AgentHealth>({
    name: 'scheduler_agent_health_ok',
    help: `1 when the agent reports this part (role) healthy, else 0; absent for a role the agent does not run or whose ok it does not say; ${fromPoll('health')}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'role'],
    samples: (h) =>
      HEALTH_ROLES.flatMap((role) => {
        const ok = h[role]?.ok;
        return ok === undefined ? [] : [{ labels: { role }, value: Number(ok) }];
      }),
  }),
];

/** Health needs no ACL: polled without the token, so `scheduler_agent_up` says whether the agent answers whatever the token is worth. */
export const healthEndpoint = endpoint({
  id: 'agent/health',
  method: 'GET',
  path: '/v1/agent/health',
  schema: agentHealthResponse,
  // An unhealthy agent answers 500 with the health body: that is data, not a transport failure.
  dataStatuses: [500],
  needs: 'none (polled without the token)',
  up: agentUp,
  families: healthFamilies,
});
