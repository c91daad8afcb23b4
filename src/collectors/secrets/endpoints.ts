import type { UpstreamClient } from '../../upstream/client.js';
import { fetchReplicationStatus, runMerkleCheck, type ReplicationKind, type SecretsAuth } from '../../upstream/secrets/api.js';
import { withSecretsReasons } from '../../upstream/secrets/availability.js';
import { merkleCheckResponse } from '../../upstream/secrets/merkle-check.js';
import { fetchOperationTokenAttempt, operationTokenAttemptResponse } from '../../upstream/secrets/operation-token-attempt.js';
import { replicationStatusResponse } from '../../upstream/secrets/replication-status.js';
import { fetchTokenLookupSelf, tokenLookupNotApplicable, tokenLookupSelfResponse } from '../../upstream/secrets/token-lookup-self.js';
import { endpoint } from '../endpoint.js';
import { attemptFamilies, attemptUp, type AttemptView } from './dr-token-attempt.js';
import { merkleFamilies, merkleUp } from './merkle.js';
import { primaryChangesFamily } from './primary-changes.js';
import { replicationFamilies, replicationUp } from './replication.js';
import { sealedFamily } from './seal.js';
import { tokenExpiryFamilies, tokenLookupUp } from './token-expiry.js';

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

/** vigil's own token: when it expires, so that it is renewed or replaced before the service refuses it. */
export const tokenLookupEndpoint = endpoint({
  id: 'secrets/token-lookup-self',
  method: 'GET',
  path: '/v1/auth/token/lookup-self',
  schema: tokenLookupSelfResponse,
  when: 'every run, on targets with a token_file',
  part: 'token',
  needs: 'read on auth/token/lookup-self (the default policy grants it)',
  fetch: async ({ client, auth, signal }: SecretsCall) => withSecretsReasons(fetchTokenLookupSelf(client, await auth(), signal)),
  up: tokenLookupUp,
  families: tokenExpiryFamilies,
  notApplicable: {
    test: tokenLookupNotApplicable,
    means: "the service refuses the lookup (403: the token's policy lacks it, or the token is no longer valid)",
  },
});

export const SECRETS_ENDPOINTS = [statusEndpoint, operationTokenAttemptEndpoint, merkleCheckEndpoint, tokenLookupEndpoint] as const;
