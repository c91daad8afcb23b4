import type { Job } from '../../jobs/part.js';
import { defineArea } from '../collector.js';
import { attemptFamilies, attemptUp } from './dr-token-attempt.js';
import { primaryChangesFamily } from './primary-changes.js';
import { replicationSetFamilies } from './replication-sets.js';
import { sealedFamily } from './seal.js';
import { withReplicationSets } from './replication-sets-job.js';
import { collectPart } from '../../jobs/part.js';
import { merkleFamilies, merkleUp } from './merkle.js';
import { scheduleIntervalSeconds } from '../../config/schedule.js';
import { replicationFamilies, replicationUp } from './replication.js';
import { walLagFamily, type WalLagTracker } from './wal-lag.js';
import type { SecretsTarget } from '../../config/schema.js';
import { renderGroup } from '../../metrics/render.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { backoffOn } from '../../upstream/retry.js';
import type { ReplicationStatus } from '../../upstream/secrets/replication-status.js';
import { fetchReplicationStatus, runMerkleCheck, type SecretsAuth } from '../../upstream/secrets/api.js';
import { withSecretsReasons } from '../../upstream/secrets/availability.js';
import { clientFor, type BuildContext } from '../../jobs/context.js';
import { statusFollowUps } from './follow-ups.js';
import { optionalSecretFile, readSecretFile } from '../../jobs/secret-file.js';

export const WAL_LAG_GROUP = 'secrets_wal_lag';

/** The secrets service answers 412 while eventually consistent data is missing: retry with backoff. */
const retry412 = backoffOn([412], { maxRetries: 4, baseMs: 200, capMs: 2_000 });

/** Jobs for one secrets target: replication status (all configured kinds), and the merkle check if configured. */
export function secretsJobs(t: SecretsTarget, ctx: BuildContext, walLag: WalLagTracker): Job[] {
  const client = clientFor('secrets', t, ctx, { retry: retry412 });
  const auth = async (): Promise<SecretsAuth> => ({
    ...(t.namespace ? { namespace: t.namespace } : {}),
    ...(t.token_file ? { token: await optionalSecretFile(t.token_file, 'token_file') } : {}),
  });
  const replication = replicationJob(t, ctx, walLag, client, auth);
  return t.merkle_check ? [replication, merkleJob(t, t.merkle_check, ctx, auth)] : [replication];
}

/** Every configured kind's status with what follows from it; after each commit, the WAL lag across targets. */
function replicationJob(t: SecretsTarget, ctx: BuildContext, walLag: WalLagTracker, client: UpstreamClient, auth: () => Promise<SecretsAuth>): Job {
  const followUps = statusFollowUps(t.name, client, ctx);
  return {
    collector: 'secrets_replication',
    target: t.name,
    schedule: t.schedule,
    run: async (signal) => {
      const statusParts = await Promise.all(
        t.replication_kinds.map((kind) =>
          collectPart({
            part: kind,
            context: { target: t.name, kind },
            fetch: async () => withSecretsReasons(fetchReplicationStatus(client, kind, await auth(), signal)),
            families: replicationFamilies,
            up: replicationUp,
            turns: ctx.turns,
          }),
        ),
      );
      return [...statusParts, ...(await followUps(statusParts, signal))];
    },
    afterCommit: (outcomes) => {
      for (const o of outcomes) {
        const kind = t.replication_kinds.find((k) => k === o.part);
        if (kind) walLag.set(t.name, kind, o.value as ReplicationStatus | undefined);
      }
      ctx.store.replace(WAL_LAG_GROUP, renderGroup([walLagFamily], walLag.pairs(), {}));
    },
  };
}

function merkleJob(t: SecretsTarget, merkle: NonNullable<SecretsTarget['merkle_check']>, ctx: BuildContext, auth: () => Promise<SecretsAuth>): Job {
  const merkleClient = clientFor('secrets', { ...t, timeout: merkle.timeout }, ctx, { retry: retry412 });
  return {
    collector: 'secrets_merkle_check',
    target: t.name,
    schedule: merkle.schedule,
    // The check makes the service walk its merkle trees: on demand, never more often than scheduled.
    minIntervalSeconds: scheduleIntervalSeconds(merkle.schedule),
    run: async (signal) => [
      await collectPart({
        part: 'merkle',
        context: { target: t.name },
        fetch: async () =>
          withSecretsReasons(
            runMerkleCheck(merkleClient, await readSecretFile(merkle.dr_operation_token_file, 'dr_operation_token_file'), await auth(), signal),
          ),
        families: merkleFamilies,
        up: merkleUp,
        turns: ctx.turns,
      }),
    ],
  };
}

/**
 * The secrets service: replication status of each configured kind (with the seal, the primary
 * changes and, on a DR secondary, the operation token attempt derived from or following it), the
 * merkle check, and across targets the WAL lag and the replication sets.
 */
export const secretsArea = defineArea({
  kind: 'secrets',
  endpoints: [
    { method: 'GET', path: '/v1/sys/replication/{kind}/status', feeds: [replicationUp, ...replicationFamilies, sealedFamily, primaryChangesFamily] },
    { method: 'GET', path: '/v1/sys/replication/dr/secondary/generate-operation-token/attempt', feeds: [attemptUp, ...attemptFamilies] },
    { method: 'POST', path: '/v1/sys/replication/dr/secondary/merkle-check', feeds: [merkleUp, ...merkleFamilies] },
  ],
  families: [
    replicationUp,
    ...replicationFamilies,
    walLagFamily,
    ...replicationSetFamilies,
    merkleUp,
    ...merkleFamilies,
    sealedFamily,
    primaryChangesFamily,
    attemptUp,
    ...attemptFamilies,
  ],
  jobs: (targets, ctx, { walLag }) =>
    withReplicationSets(
      targets.flatMap((t) => secretsJobs(t, ctx, walLag)),
      targets,
      ctx,
      walLag,
    ),
});
