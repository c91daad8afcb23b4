import type { UpstreamClient } from '../../upstream/client.js';
import { fetchReplicationStatus, runMerkleCheck, type ReplicationKind, type SecretsAuth } from '../../upstream/secrets/api.js';
import { withSecretsReasons } from '../../upstream/secrets/availability.js';
import { merkleCheckResponse } from '../../upstream/secrets/merkle-check.js';
import { fetchOperationTokenAttempt, operationTokenAttemptResponse } from '../../upstream/secrets/operation-token-attempt.js';
import { replicationStatusResponse } from '../../upstream/secrets/replication-status.js';
import type { UpstreamError } from '../../upstream/errors.js';
import { autopilotStateResponse, fetchAutopilotState } from '../../upstream/secrets/autopilot-state.js';
import { fetchHaStatus, haStatusResponse } from '../../upstream/secrets/ha-status.js';
import { fetchLeader, leaderResponse } from '../../upstream/secrets/leader.js';
import { fetchNodeHealth, healthResponse } from '../../upstream/secrets/node-health.js';
import { endpoint } from '../endpoint.js';
import { activeNodeFamilies, discoveryFamilies, leaderUp } from './cluster-nodes.js';
import type { NodeAddressing } from './node-addresses.js';
import { haStatusFamilies, haStatusUp } from './node-ha-status.js';
import { nodeHealthFamilies, nodeUp } from './node-health.js';
import { autopilotFamilies, autopilotUp } from './raft-autopilot.js';
import { attemptFamilies, attemptUp, type AttemptView } from './dr-token-attempt.js';
import { merkleFamilies, merkleUp } from './merkle.js';
import { primaryChangesFamily } from './primary-changes.js';
import { replicationFamilies, replicationUp } from './replication.js';
import { sealedFamily } from './seal.js';

/** What every call to the secrets service takes: the target's pooled client, its credentials (read at use), the run's signal. */
export interface SecretsCall {
  client: UpstreamClient;
  auth: () => Promise<SecretsAuth>;
  signal: AbortSignal;
}

/** Replication status of one kind; a sealed or standby node says so in its status code (`withSecretsReasons`). */
export const statusEndpoint = endpoint({
  id: 'secrets/status',
  method: 'GET',
  path: '/v1/sys/replication/{kind}/status',
  schema: replicationStatusResponse,
  when: 'every run, once per kind of `replication_kinds`',
  part: '{kind}',
  needs: 'none: unauthenticated per the API (a service that still checks wants read on sys/replication/{kind}/status)',
  fetch: async ({ client, auth, signal, kind }: SecretsCall & { kind: ReplicationKind }) =>
    withSecretsReasons(fetchReplicationStatus(client, kind, await auth(), signal)),
  up: replicationUp,
  families: replicationFamilies,
  derived: [sealedFamily, primaryChangesFamily],
});

/**
 * Whether someone is assembling key shares for a DR operation token; only a DR secondary has the
 * endpoint. The clock lives as long as the target's job, so a failed poll does not restart an attempt's age.
 */
export const operationTokenAttemptEndpoint = endpoint({
  id: 'secrets/dr-operation-token-attempt',
  method: 'GET',
  path: '/v1/sys/replication/dr/secondary/generate-operation-token/attempt',
  schema: operationTokenAttemptResponse,
  when: 'every run on a DR secondary (after its DR status said so)',
  part: 'dr_token_attempt',
  fetch: async ({
    client,
    signal,
    clock,
  }: Pick<SecretsCall, 'client' | 'signal'> & { clock: (a: Awaited<ReturnType<typeof fetchOperationTokenAttempt>>) => AttemptView }) =>
    clock(await withSecretsReasons(fetchOperationTokenAttempt(client, signal))),
  up: attemptUp,
  families: attemptFamilies,
});

/** The merkle corruption check: it makes the service walk its trees, so it has a schedule of its own. */
export const merkleCheckEndpoint = endpoint({
  id: 'secrets/merkle-check',
  method: 'POST',
  path: '/v1/sys/replication/dr/secondary/merkle-check',
  schema: merkleCheckResponse,
  when: 'on its own schedule, with `merkle_check` set',
  part: 'merkle',
  needs: 'the DR operation token (merkle_check.dr_operation_token_file)',
  fetch: async ({ client, auth, signal, operationToken }: SecretsCall & { operationToken: () => Promise<string> }) =>
    withSecretsReasons(runMerkleCheck(client, await operationToken(), await auth(), signal)),
  up: merkleUp,
  families: merkleFamilies,
});

/** What the node poll's calls to the cluster's configured address take: root-namespace endpoints, so the token alone. */
export interface ClusterCall {
  client: UpstreamClient;
  token: () => Promise<string | undefined>;
  signal: AbortSignal;
}

/** Refused (403), unknown (404, 405), or disabled on a DR secondary (400 "path disabled in replication DR secondary mode"). */
const refused = (err: UpstreamError) =>
  err.status === 403 || err.status === 404 || err.status === 405 || (err.status === 400 && /path disabled/i.test(err.message));
const NODE_POLL = "every run of the node poll (`nodes.schedule`), at the cluster's configured address";

/** The nodes the active node has heard from, with their API addresses: where the node poll finds the nodes. */
export const haStatusEndpoint = endpoint({
  id: 'secrets/ha-status',
  method: 'GET',
  path: '/v1/sys/ha-status',
  schema: haStatusResponse,
  when: NODE_POLL,
  part: 'ha_status',
  needs: 'read on sys/ha-status (root namespace)',
  fetch: async ({ client, token, signal, addressing }: ClusterCall & { addressing: NodeAddressing }) => ({
    nodes: (await withSecretsReasons(fetchHaStatus(client, await token(), signal))).map((n) => ({
      ...n,
      node: addressing({ hostname: n.hostname, address: n.api_address }, 'api'),
    })),
  }),
  up: haStatusUp,
  families: haStatusFamilies,
  derived: discoveryFamilies,
  notApplicable: {
    test: refused,
    means:
      'the token may not read sys/ha-status (403), or the service has no such endpoint (404, before 1.10): the nodes come from autopilot, or the configured address alone',
  },
});

/** The raft cluster as autopilot sees it: health, failure tolerance, voters, each server. */
export const autopilotStateEndpoint = endpoint({
  id: 'secrets/raft-autopilot-state',
  method: 'GET',
  path: '/v1/sys/storage/raft/autopilot/state',
  schema: autopilotStateResponse,
  when: NODE_POLL,
  part: 'raft_autopilot',
  needs: 'read on sys/storage/raft/autopilot/state (root namespace)',
  fetch: async ({ client, token, signal }: ClusterCall) => withSecretsReasons(fetchAutopilotState(client, await token(), signal)),
  up: autopilotUp,
  families: autopilotFamilies,
  notApplicable: {
    test: (err) => refused(err) || ((err.status === 400 || err.status === 500) && /raft|autopilot|integrated storage/i.test(err.message)),
    means:
      'no integrated storage (400 "raft storage is not in use", 404), a DR secondary (400 "path disabled"), autopilot not running yet (no body), or the token may not read the path (403)',
  },
});

/** Which node leads, by its API address: the active node where the HA status does not say it. */
export const leaderEndpoint = endpoint({
  id: 'secrets/leader',
  method: 'GET',
  path: '/v1/sys/leader',
  schema: leaderResponse,
  when: NODE_POLL,
  part: 'leader',
  needs: 'none: unauthenticated per the API',
  fetch: async ({ client, signal }: Pick<ClusterCall, 'client' | 'signal'>) => withSecretsReasons(fetchLeader(client, signal)),
  up: leaderUp,
  families: [],
  derived: activeNodeFamilies,
});

/** One node's own health, at the node's own address: every documented status code is an answer. */
export const nodeHealthEndpoint = endpoint({
  id: 'secrets/node-health',
  method: 'GET',
  path: '/v1/sys/health',
  schema: healthResponse,
  when: "every run of the node poll, once per node, at the node's own address",
  part: 'node {node}',
  needs: 'none: unauthenticated per the API',
  fetch: async ({ client, signal }: Pick<ClusterCall, 'client' | 'signal'>) => fetchNodeHealth(client, signal),
  up: nodeUp,
  families: nodeHealthFamilies,
});

export const SECRETS_ENDPOINTS = [
  statusEndpoint,
  operationTokenAttemptEndpoint,
  merkleCheckEndpoint,
  haStatusEndpoint,
  autopilotStateEndpoint,
  leaderEndpoint,
  nodeHealthEndpoint,
] as const;
