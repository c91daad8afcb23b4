import { z } from 'zod';
import { family, single, type Family } from '../../metrics/family.js';
import { lenient } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';
import type { SecretsAuth } from './auth.js';
import { snapshotsNotApplicable } from './raft-snapshot-status.js';

/**
 * `LIST /v1/sys/storage/raft/snapshot-auto/config` (sent as GET with `list=true`, which the service
 * reads alike): the names of the automated snapshot configurations. It needs sudo, which the status
 * does not: a token without it is answered 403, and the configured names stand alone.
 */
export const SNAPSHOT_NAME = /^[^/\s]{1,128}$/;

export const snapshotConfigsResponse = z.object({
  data: z.object({
    keys: lenient(z.array(z.unknown())).transform((k) => (k ?? []).filter((x): x is string => typeof x === 'string' && SNAPSHOT_NAME.test(x))),
  }),
});

/** The configurations' names, listed. */
export const raftSnapshotConfigsEndpoint = endpoint({
  id: 'secrets/raft-snapshot-configs',
  method: 'GET',
  path: '/v1/sys/storage/raft/snapshot-auto/config',
  schema: snapshotConfigsResponse,
  send: async (c: SecretsAuth) => ({ ...(await c.rooted()), query: { list: 'true' } }),
  read: async (get): Promise<readonly string[]> => (await get()).value.data.keys,
  needs: 'list with sudo on sys/storage/raft/snapshot-auto/config (root namespace)',
  bounds: [{ items: 'automated snapshot configurations (configured and listed)', key: 'snapshots.max_names', dropped: 'secrets_raft_snapshot_series_dropped' }],
  families: [],
  notApplicable: {
    test: (err) => err.status === 403 || snapshotsNotApplicable(err),
    means:
      'the token may not list (403: it needs sudo; the configured names stand), or no automated snapshots here (400 "raft storage is not in use", 404, 405, a DR secondary)',
  },
});

/** The names polled: the configured ones first, then those listed, each once, at most `max`; and how many were left out. */
export interface SnapshotNames {
  readonly names: readonly string[];
  readonly dropped: number;
}

export function snapshotNames(configured: readonly string[], listed: readonly string[], max: number): SnapshotNames {
  const all = [...new Set([...configured, ...listed])];
  return { names: all.slice(0, max), dropped: Math.max(0, all.length - max) };
}

export const snapshotsDroppedFamily: Family<SnapshotNames> = family<SnapshotNames>({
  name: 'secrets_raft_snapshot_series_dropped',
  help: 'Automated snapshot configurations (configured and listed) beyond snapshots.max_names, left unpolled and without secrets_raft_snapshot_* series.',
  type: 'gauge',
  section: 'secrets',
  labels: ['target'],
  samples: single((n) => n.dropped),
});
