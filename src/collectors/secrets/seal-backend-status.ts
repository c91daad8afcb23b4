import { z } from 'zod';
import { family, single, upFamily, type Family, type Sample } from '../../metrics/family.js';
import { boolish, instant, isObjectLike, lenient, lenientString } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';

/**
 * `GET /v1/sys/seal-backend-status` of one node (1.15+; Seal HA, several seal backends, is
 * Enterprise 1.16+): unauthenticated, about the node that answers. Each backend's health and since
 * when it is unhealthy; the seal as a whole is healthy only while every backend is. A server
 * without Seal HA answers one backend (`shamir`, or its one auto seal); one before 1.15 has no such
 * path (404). Times come as RFC 3339, or as Go's own `time.String()` (1.15, `2023-09-22
 * 08:24:11.5 +0000 UTC m=+3600.0001`): both are read.
 */

/** Go's `time.String()`, its monotonic reading dropped, as RFC 3339. */
function fromGoTime(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) ([+-]\d{2})(\d{2})(?: [A-Z]+)?(?: m=[+-][\d.]+)?$/.exec(v.trim());
  return m ? `${m[1]}T${m[2]}${m[3]}:${m[4]}` : v;
}
const since = z.preprocess(fromGoTime, lenient(instant));

/** Backends with series of their own: Seal HA allows three; a list far longer is no server's. */
export const MAX_SEAL_BACKENDS = 16;

const backend = z.object({ name: lenientString.transform((v) => v?.slice(0, 64)), healthy: lenient(boolish), unhealthy_since: since });
/** The backends read, each alone: one that is no object or has no name is dropped, and the list is bounded. */
const backends = lenient(z.array(z.unknown())).transform((list) =>
  (list ?? []).slice(0, MAX_SEAL_BACKENDS).flatMap((b) => {
    const r = isObjectLike(b) ? backend.safeParse(b) : undefined;
    return r?.success && r.data.name ? [{ ...r.data, name: r.data.name }] : [];
  }),
);

export const sealBackendStatusResponse = z.object({ healthy: lenient(boolish), unhealthy_since: since, backends });
export type SealBackendStatus = z.output<typeof sealBackendStatusResponse>;

const NODE = ['target', 'node', 'address'] as const;
const FROM = "from the node's own sys/seal-backend-status answer";

export const sealBackendsUp = upFamily({
  name: 'secrets_node_seal_backends_up',
  help: '1 when the node answered sys/seal-backend-status at its own address and the answer parsed, else 0; absent where the server has no such endpoint (before 1.15) or the switch seal_backends is off.',
  section: 'secrets',
  labels: [...NODE],
});

const perBackend = (value: (b: SealBackendStatus['backends'][number]) => number | boolean | undefined) => (s: SealBackendStatus) =>
  s.backends.flatMap((b): Sample[] => {
    const v = value(b);
    return v === undefined ? [] : [{ labels: { backend: b.name }, value: Number(v) }];
  });

export const sealBackendFamilies: readonly Family<SealBackendStatus>[] = [
  family<SealBackendStatus>({
    name: 'secrets_node_seal_backends_healthy',
    help: `1 when every seal backend of the node is healthy (the seal as a whole), else 0; ${FROM}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...NODE],
    samples: single((s) => s.healthy),
  }),
  family<SealBackendStatus>({
    name: 'secrets_node_seal_backend_healthy',
    help: `1 when this seal backend of the node is healthy, else 0; a node whose every backend is 0 cannot unseal on its next restart (at most ${MAX_SEAL_BACKENDS} backends); ${FROM}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...NODE, 'backend'],
    samples: perBackend((b) => b.healthy),
  }),
  family<SealBackendStatus>({
    name: 'secrets_node_seal_backend_unhealthy_since_timestamp_seconds',
    help: `When this seal backend of the node was last seen healthy, as Unix time; absent while it is healthy; ${FROM}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...NODE, 'backend'],
    samples: perBackend((b) => (b.healthy === false ? b.unhealthy_since : undefined)),
  }),
];

/** Each seal backend of the node (Seal HA): which are unhealthy, and since when. */
export const sealBackendStatusEndpoint = endpoint({
  id: 'secrets/seal-backend-status',
  method: 'GET',
  path: '/v1/sys/seal-backend-status',
  schema: sealBackendStatusResponse,
  needs: 'none: unauthenticated per the API',
  up: sealBackendsUp,
  families: sealBackendFamilies,
  notApplicable: { test: (err) => err.status === 404 || err.status === 405, means: 'the server has no seal backend status (404: before 1.15)' },
  switch: {
    key: 'seal_backends',
    default: true,
    help: "each seal backend's health on each node (Seal HA); one more request per node at each node poll, answered 404 (not applicable) by servers before 1.15",
  },
});
