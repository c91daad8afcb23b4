import { scheduleIntervalSeconds } from '../../config-fields/schedule.js';
import { clientFor, type BuildContext } from '../../jobs/context.js';
import type { Job } from '../../jobs/part.js';
import { optionalSecretFile, readSecretFile } from '../../jobs/secret-file.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { backoffOn } from '../../upstream/retry.js';
import type { SecretsAuth } from '../../upstream/secrets/api.js';
import { defineCollector } from '../collector.js';
import { collectEndpoint } from '../endpoint.js';
import { SecretsState } from './derived-state.js';
import { attemptFamilies, attemptUp } from './dr-token-attempt.js';
import { SECRETS_ENDPOINTS, merkleCheckEndpoint, statusEndpoint, tokenLookupEndpoint } from './endpoints.js';
import { statusFollowUps } from './follow-ups.js';
import { merkleFamilies, merkleUp } from './merkle.js';
import { primaryChangesFamily } from './primary-changes.js';
import { replicationSetFamilies } from './replication-sets.js';
import { replicationFamilies, replicationUp } from './replication.js';
import { sealedFamily } from './seal.js';
import { secondaryTargetFamily } from './secondary-targets.js';
import { secretsTarget, type SecretsTarget } from './target.js';
import { tokenExpiryFamilies, tokenLookupUp } from './token-expiry.js';
import { walLagFamily } from './wal-lag.js';
import { activeNodeFamilies, discoveryFamilies, leaderUp } from './cluster-nodes.js';
import { haStatusFamilies, haStatusUp } from './node-ha-status.js';
import { nodeHealthFamilies, nodeUp } from './node-health.js';
import { nodesJob } from './node-job.js';
import { autopilotFamilies, autopilotUp } from './raft-autopilot.js';

/** The secrets service answers 412 while eventually consistent data is missing: retry with backoff. */
const retry412 = backoffOn([412], { maxRetries: 4, baseMs: 200, capMs: 2_000 });

/** Jobs for one secrets target: replication status (all configured kinds), and the merkle check if configured. */
function secretsJobs(t: SecretsTarget, ctx: BuildContext, state: SecretsState, publish: (status: (s: SecretsState) => void) => void): Job[] {
  const client = clientFor('secrets', t, ctx, { retry: retry412 });
  const auth = async (): Promise<SecretsAuth> => ({
    ...(t.namespace ? { namespace: t.namespace } : {}),
    ...(t.token_file ? { token: await optionalSecretFile(t.token_file, 'token_file') } : {}),
  });
  const replication = replicationJob(t, ctx, client, auth, publish);
  return [
    replication,
    ...(t.merkle_check ? [merkleJob(t, t.merkle_check, ctx, auth)] : []),
    ...(t.nodes.enabled ? [nodesJob(t, ctx, client, state.activeNodes)] : []),
  ];
}

/** Every configured kind's status with what follows from it; after each commit, what is derived across targets. */
function replicationJob(
  t: SecretsTarget,
  ctx: BuildContext,
  client: UpstreamClient,
  auth: () => Promise<SecretsAuth>,
  publish: (status: (s: SecretsState) => void) => void,
): Job {
  const followUps = statusFollowUps(t.name, client, ctx);
  return {
    collector: 'secrets_replication',
    target: t.name,
    schedule: t.schedule,
    run: async (signal) => {
      // Without a token file there is no token of vigil's to expire.
      const token = t.token_file
        ? collectEndpoint(tokenLookupEndpoint, { client, auth, signal }, { context: { target: t.name }, turns: ctx.turns })
        : undefined;
      const statusParts = await Promise.all(
        t.replication_kinds.map((kind) =>
          collectEndpoint(statusEndpoint, { client, auth, signal, kind }, { part: kind, context: { target: t.name, kind }, turns: ctx.turns }),
        ),
      );
      // The token's part first: a run's last failed part is the one its target shows, and the statuses say more.
      return [...(token ? [await token] : []), ...statusParts, ...(await followUps(statusParts, signal))];
    },
    afterCommit: (outcomes) =>
      publish((state) => {
        for (const o of outcomes) {
          const kind = t.replication_kinds.find((k) => k === o.part);
          if (kind) state.record(t.name, kind, o);
        }
      }),
  };
}

function merkleJob(t: SecretsTarget, merkle: NonNullable<SecretsTarget['merkle_check']>, ctx: BuildContext, auth: () => Promise<SecretsAuth>): Job {
  const client = clientFor('secrets', { ...t, timeout: merkle.timeout }, ctx, { retry: retry412 });
  const operationToken = () => readSecretFile(merkle.dr_operation_token_file, 'dr_operation_token_file');
  return {
    collector: 'secrets_merkle_check',
    target: t.name,
    schedule: merkle.schedule,
    // The check makes the service walk its merkle trees: on demand, never more often than scheduled.
    minIntervalSeconds: scheduleIntervalSeconds(merkle.schedule),
    run: async (signal) => [
      await collectEndpoint(merkleCheckEndpoint, { client, auth, signal, operationToken }, { context: { target: t.name }, turns: ctx.turns }),
    ],
  };
}

/**
 * The secrets service: replication status of each configured kind (with the seal, the primary
 * changes and, on a DR secondary, the operation token attempt derived from or following it), the
 * merkle check, every node of each cluster (its health, the HA and raft state, the active node's
 * changes), and across targets the WAL lag and the replication sets.
 */
export const secretsCollector = defineCollector({
  kind: 'secrets',
  target: secretsTarget,
  endpoints: SECRETS_ENDPOINTS,
  families: [
    replicationUp,
    ...replicationFamilies,
    walLagFamily,
    ...replicationSetFamilies,
    secondaryTargetFamily,
    merkleUp,
    ...merkleFamilies,
    sealedFamily,
    primaryChangesFamily,
    attemptUp,
    ...attemptFamilies,
    ...discoveryFamilies,
    haStatusUp,
    leaderUp,
    ...activeNodeFamilies,
    nodeUp,
    ...nodeHealthFamilies,
    ...haStatusFamilies,
    autopilotUp,
    ...autopilotFamilies,
    tokenLookupUp,
    ...tokenExpiryFamilies,
  ],
  derived: [walLagFamily, ...replicationSetFamilies, secondaryTargetFamily],
  state: () => new SecretsState(),
  jobs: (targets, ctx, state) =>
    targets.flatMap((t) =>
      secretsJobs(t, ctx, state, (update) => {
        update(state);
        state.publish(targets, ctx.store);
      }),
    ),
  settle: (state, targets, ctx) => state.settle(targets, ctx.store),
});
