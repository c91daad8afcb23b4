import { z } from 'zod';
import { numberish } from '../schema-helpers.js';

/**
 * `GET /v1/agent/host`: only the disks are used (sizes in MB). The rest (environment, network)
 * is never read, so whatever it holds cannot leak into a metric.
 */
const size = numberish.nullish().transform((v) => v ?? undefined);
const disk = z.object({ DiskMB: size, UsedMB: size });

const hostData = z.object({
  Disk: z
    .record(z.string(), disk)
    .nullish()
    .transform((v) => v ?? {}),
});

/**
 * Two forms: asked with neither `node_id` nor `server_id` (as vigil asks), a real agent answers
 * with the host data itself (`{"OS": …, "Network": …, "Disk": {…}}`); forwarded to another node it
 * wraps it as `{"AgentID": …, "HostData": {…}}`, the form the spec shows. Both read the same.
 */
export const agentHostResponse = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !('HostData' in v) ? { HostData: v } : v),
  z.object({ AgentID: z.string().optional(), HostData: hostData }),
);

export type AgentHost = z.output<typeof agentHostResponse>;
