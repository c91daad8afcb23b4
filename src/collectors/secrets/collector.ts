import { defineCollector } from '../collector.js';
import { secretsFailure } from './availability.js';
import { secretsCall } from './call.js';
import { SecretsState } from './derived-state.js';
import { merklePlan, nodesPlan, replicationPlan, snapshotsPlan } from './plans.js';
import { replicationSetFamilies } from './replication-sets.js';
import { replicationStatusEndpoint, type ReplicationKind } from './replication-status.js';
import { secondaryTargetFamily } from './secondary-targets.js';
import { secretsShardKeys } from './shard-keys.js';
import { secretsTarget } from './target.js';
import { walLagFamily } from './wal-lag.js';

/**
 * The secrets service: replication status of each configured kind (with the seal, the primary
 * changes and, on a DR secondary, the DR operation token attempt that follow from it), the merkle
 * check, every node of each cluster (its health, the HA and raft state, the active node's changes),
 * and across targets the WAL lag and the replication sets.
 */
export const secretsCollector = defineCollector({
  kind: 'secrets',
  target: secretsTarget,
  plans: [replicationPlan, merklePlan, nodesPlan, snapshotsPlan],
  derived: [walLagFamily, ...replicationSetFamilies, secondaryTargetFamily],
  call: (t, ctx, state: SecretsState) => secretsCall(t, ctx, state.activeNodes),
  failure: secretsFailure,
  state: () => new SecretsState(),
  afterCommit: (state, t, outcomes, targets, ctx) => {
    const statuses = outcomes.filter((o) => o.endpoint === replicationStatusEndpoint);
    if (!statuses.length) return;
    for (const o of statuses) state.record(t.name, o.item as ReplicationKind, o);
    state.publish(targets, ctx.store);
  },
  settle: (state, targets, ctx) => state.settle(targets, ctx.store),
  shardKeys: secretsShardKeys,
});
