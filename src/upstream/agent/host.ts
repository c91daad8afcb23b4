import { z } from 'zod';
import { lenient, numberish } from '../schema-helpers.js';

/**
 * `GET /v1/agent/host`: only the disks are used (sizes in MB). The rest (environment, network)
 * is never read, so whatever it holds cannot leak into a metric.
 */
const size = lenient(numberish);
const disk = lenient(z.object({ DiskMB: size, UsedMB: size }));

/** A disk entry that is no object is dropped, alone. */
const hostData = z.object({
  Disk: lenient(z.record(z.string(), disk)).transform((v) =>
    Object.fromEntries(Object.entries(v ?? {}).flatMap(([mount, d]) => (d === undefined ? [] : [[mount, d]]))),
  ),
});

/**
 * Two forms: asked with neither `node_id` nor `server_id` (as vigil asks), a real agent answers
 * with the host data itself (`{"OS": …, "Network": …, "Disk": {…}}`); forwarded to another node it
 * wraps it as `{"AgentID": …, "HostData": {…}}`, the form the spec shows. Both read the same.
 */
export const agentHostResponse = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !('HostData' in v) ? { HostData: v } : v),
  z.object({ AgentID: lenient(z.string()), HostData: hostData }),
);

export type AgentHost = z.output<typeof agentHostResponse>;
