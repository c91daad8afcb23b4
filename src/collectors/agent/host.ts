import { family, type Family, type Sample } from '../../metrics/family.js';
import type { AgentHost } from '../../upstream/agent/host.js';
import { fromPoll } from './endpoint-up.js';

/** `/agent/host`: disk sizes of the agent's host. The agent reports MB (MiB); Prometheus wants bytes. */

const MB = 1024 * 1024;

const diskSamples = (h: AgentHost, field: 'DiskMB' | 'UsedMB'): Sample[] =>
  Object.entries(h.HostData.Disk).flatMap(([mount, d]) => {
    const mb = d[field];
    return mb === undefined ? [] : [{ labels: { mount }, value: mb * MB }];
  });

export const hostFamilies: readonly Family<AgentHost>[] = [
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
];
