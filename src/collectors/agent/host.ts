import { z } from 'zod';
import { family, single, type Family, type Sample } from '../../metrics/family.js';
import { capped } from '../../metrics/series-cap.js';
import { lenient, numberish } from '../../upstream/schema-helpers.js';
import type { AgentAuth } from './auth.js';
import { fromPoll, optional } from './optional.js';

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

/** `/agent/host`: disk sizes of the agent's host. The agent reports MB (MiB); Prometheus wants bytes. */

const MB = 1024 * 1024;

const diskSamples = (h: AgentHost, field: 'DiskMB' | 'UsedMB'): Sample[] =>
  Object.entries(h.HostData.Disk).flatMap(([mount, d]) => {
    const mb = d[field];
    return mb === undefined ? [] : [{ labels: { mount }, value: mb * MB }];
  });

/** A disk nearly full is kept first: it is what the series are for. */
const filling = ([, d]: [string, { DiskMB?: number | undefined; UsedMB?: number | undefined }]) =>
  d.DiskMB !== undefined && d.UsedMB !== undefined && d.UsedMB >= 0.8 * d.DiskMB;

/** The answer with at most `max` disks (a host with a mount per container lists thousands), the nearly full ones first, and how many were left out. */
export function boundDisks(h: AgentHost, max: number): AgentHost & { readonly dropped: number } {
  const { kept, dropped } = capped(Object.entries(h.HostData.Disk), max, filling);
  return { ...h, HostData: { ...h.HostData, Disk: Object.fromEntries(kept) }, dropped };
}

export const hostFamilies: readonly Family<AgentHost & { readonly dropped?: number }>[] = [
  family<AgentHost>({
    name: 'scheduler_agent_host_disk_size_bytes',
    help: `Size of the disk mounted at this path on the agent's host; ${fromPoll('host')}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'mount'],
    samples: (h) => diskSamples(h, 'DiskMB'),
  }),
  family<AgentHost>({
    name: 'scheduler_agent_host_disk_used_bytes',
    help: `Space used on the disk mounted at this path on the agent's host; ${fromPoll('host')}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'mount'],
    samples: (h) => diskSamples(h, 'UsedMB'),
  }),
  family<AgentHost & { readonly dropped?: number }>({
    name: 'scheduler_agent_host_disk_series_dropped',
    help: `Disks the answer listed beyond max_host_disks, left without series (those at least 80 % used are kept first); ${fromPoll('host')}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((h) => h.dropped),
  }),
];

export const hostEndpoint = optional('host', {
  path: '/v1/agent/host',
  schema: agentHostResponse,
  read: async (get, c: AgentAuth & { readonly target: { readonly max_host_disks: number } }) => boundDisks((await get()).value, c.target.max_host_disks),
  needs: 'agent:read (and debug endpoints allowed on the agent)',
  bounds: [{ items: 'disks', key: 'max_host_disks', dropped: 'scheduler_agent_host_disk_series_dropped' }],
  families: hostFamilies,
  default: false,
  help: 'disk sizes of the host (agent:read, and the agent must allow debug endpoints); off by default: the answer also carries host details (environment, network) that not every operator wants an exporter to fetch',
});
