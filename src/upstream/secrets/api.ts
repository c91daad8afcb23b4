import type { UpstreamClient } from '../client.js';
import { parseBody } from '../parse.js';
import { merkleCheckResponse, type MerkleReport } from './merkle-check.js';
import { replicationStatusResponse, type ReplicationStatus } from './replication-status.js';

/** The kinds of replication, each with its own `sys/replication/<kind>/status`. */
export const REPLICATION_KINDS = ['performance', 'dr'] as const;
export type ReplicationKind = (typeof REPLICATION_KINDS)[number];

/** The secrets service's replication endpoints vigil calls, each returning a typed, validated value. */
export interface SecretsAuth {
  token?: string;
  namespace?: string;
}

export function headers(auth: SecretsAuth): Record<string, string> {
  return {
    ...(auth.token ? { 'x-secrets-token': auth.token } : {}),
    ...(auth.namespace ? { 'x-secrets-namespace': auth.namespace } : {}),
  };
}

export async function fetchReplicationStatus(
  client: UpstreamClient,
  kind: ReplicationKind,
  auth: SecretsAuth,
  signal: AbortSignal,
): Promise<ReplicationStatus> {
  const endpoint = `${kind}/status`;
  const res = await client.json({ endpoint, path: `/v1/sys/replication/${kind}/status`, headers: headers(auth), signal });
  return parseBody(replicationStatusResponse, res.body, endpoint).data;
}

/** Runs a merkle check on a DR secondary; the DR operation token goes in the body, never in a header. */
export async function runMerkleCheck(client: UpstreamClient, drOperationToken: string, auth: SecretsAuth, signal: AbortSignal): Promise<MerkleReport> {
  const endpoint = 'dr/secondary/merkle-check';
  const res = await client.json({
    endpoint,
    method: 'POST',
    path: '/v1/sys/replication/dr/secondary/merkle-check',
    headers: headers(auth),
    body: { dr_operation_token: drOperationToken },
    signal,
  });
  return parseBody(merkleCheckResponse, res.body, endpoint).data.merkle_corruption_report;
}
