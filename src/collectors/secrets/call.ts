import { clientFor, type BuildContext } from '../../jobs/context.js';
import { optionalSecretFile, readSecretFile } from '../../jobs/secret-file.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { backoffOn } from '../../upstream/retry.js';
import type { SecretsAuth } from './auth.js';
import type { ActiveNodeChanges } from './cluster-nodes.js';
import { attemptClock, type AttemptView, type OperationTokenAttempt } from './dr-operation-token-attempt.js';
import { nodeAddressing, type NodeAddressing } from './node-addresses.js';
import { NodeClients } from './node-clients.js';
import type { Discovery } from './node-discovery.js';
import { NodeNames } from './node-names.js';
import { primaryChangeCounter, type PrimaryChanges } from './primary-changes.js';
import type { SnapshotMemory } from './raft-snapshot-status.js';
import type { ReplicationStatus } from './replication-status.js';
import type { SecretsTarget } from './target.js';
import { tokenReach } from './token-reach.js';

/** The secrets service answers 412 while eventually consistent data is missing: retry with backoff. */
const retry412 = backoffOn([412], { maxRetries: 4, baseMs: 200, capMs: 2_000 });

/**
 * What one secrets target's calls share, for as long as its jobs live: the pooled clients (the
 * configured address's, the merkle check's with its own timeout, one per node), what its requests
 * send (the token read once a run, as the agent's and the teams' are: a rotated file is picked up by
 * the next run), and what its runs carry over (the DR attempt's clock, the primaries seen, the nodes
 * found, the active node's changes).
 */
export interface SecretsCall extends SecretsAuth {
  readonly target: SecretsTarget;
  readonly client: UpstreamClient;
  /** The merkle check's client: the target's address with merkle_check.timeout. */
  readonly merkleClient: () => UpstreamClient;
  readonly nodes: NodeClients;
  /** The audited request's clients, with nodes.audit_check.timeout: the configured address's, and a node's where the token may go. */
  readonly audited: { readonly client: () => UpstreamClient; readonly nodes: NodeClients; readonly mayReceiveToken: (node: string) => boolean };
  operationToken(): Promise<string>;
  readonly attemptClock: (a: OperationTokenAttempt) => AttemptView;
  readonly countChanges: (statuses: ReadonlyMap<string, ReplicationStatus>) => PrimaryChanges;
  readonly addressing: NodeAddressing;
  /** Raft address to node, as earlier HA statuses paired them; the last nodes found; the names the nodes were last given. */
  readonly discovery: { readonly known: Map<string, string>; last?: Discovery; readonly names: NodeNames };
  readonly activeNodes: ActiveNodeChanges;
  /** Each automated snapshot configuration's last success seen (the answer forgets it while attempts fail), and the names last listed. */
  readonly snapshots: SnapshotMemory;
}

const tokenHeader = (token: string | undefined): Record<string, string> => (token ? { 'x-secrets-token': token } : {});

export function secretsCall(t: SecretsTarget, ctx: BuildContext, activeNodes: ActiveNodeChanges): () => SecretsCall {
  let merkle: UpstreamClient | undefined;
  let audited: UpstreamClient | undefined;
  const auditTimeout = { ...t, timeout: t.nodes.audit_check.timeout };
  const reach = tokenReach({ address: t.address, sendTokenTo: t.nodes.audit_check.send_token_to, templated: t.nodes.address_template !== undefined });
  const merkleTimeout = t.merkle_check?.timeout ?? t.timeout;
  const shared: Omit<SecretsCall, keyof SecretsAuth> = {
    target: t,
    client: clientFor('secrets', t, ctx, { retry: retry412 }),
    merkleClient: () => (merkle ??= clientFor('secrets', { ...t, timeout: merkleTimeout }, ctx, { retry: retry412 })),
    nodes: new NodeClients(t, ctx),
    audited: {
      client: () => (audited ??= clientFor('secrets', auditTimeout, ctx)),
      nodes: new NodeClients(auditTimeout, ctx, (node) => reach(node, shared.discovery.last?.source)),
      mayReceiveToken: (node) => reach(node, shared.discovery.last?.source),
    },
    operationToken: () => readSecretFile(t.merkle_check?.dr_operation_token_file ?? '', 'dr_operation_token_file'),
    attemptClock: attemptClock(),
    countChanges: primaryChangeCounter(),
    addressing: nodeAddressing(t.address, t.nodes.address_template),
    discovery: { known: new Map(), names: new NodeNames() },
    activeNodes,
    snapshots: { successes: new Map(), listed: [] },
  };
  return () => {
    let read: Promise<string | undefined> | undefined;
    const token = () => (read ??= optionalSecretFile(t.token_file, 'token_file'));
    return {
      ...shared,
      namespaced: async () => ({ headers: { ...tokenHeader(await token()), ...(t.namespace ? { 'x-secrets-namespace': t.namespace } : {}) } }),
      rooted: async () => ({ headers: tokenHeader(await token()) }),
    };
  };
}
