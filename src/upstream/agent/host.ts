import { z } from 'zod';
import { numberish } from '../schema-helpers.js';

/**
 * `GET /v1/agent/host`: only the disks are used (sizes in MB). The rest (environment, network)
 * is never read, so whatever it holds cannot leak into a metric.
 */
const size = numberish.nullish().transform((v) => v ?? undefined);
const disk = z.object({ DiskMB: size, UsedMB: size });

export const agentHostResponse = z.object({
  AgentID: z.string().optional(),
  HostData: z.object({
    Disk: z
      .record(z.string(), disk)
      .nullish()
      .transform((v) => v ?? {}),
  }),
});

export type AgentHost = z.output<typeof agentHostResponse>;
