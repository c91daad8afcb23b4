import { scheduleIntervalSeconds } from '../../config-fields/schedule.js';
import { call, derive, type Earlier, type Plan } from '../plan.js';
import type { SecretsCall } from './call.js';
import { auditedRequestEndpoint, nodeAuditedRequestEndpoint } from './audited-request.js';
import { activeNodeFamilies, discoveryFamilies, haNodeFamilies, type ClusterNodes } from './cluster-nodes.js';
import { drOperationTokenAttemptEndpoint } from './dr-operation-token-attempt.js';
import { haStatusEndpoint } from './ha-status.js';
import { leaderEndpoint } from './leader.js';
import { merkleCheckEndpoint } from './merkle-check.js';
import { activeNode, discover, orLast, type Discovery } from './node-discovery.js';
import { nodeHealthEndpoint } from './node-health.js';
import { nodeLabels } from './node-names.js';
import { primaryChangesFamily } from './primary-changes.js';
import { nodeBlocked, requestsBlockedFamilies, serves, type RequestsBlocked } from './requests-blocked.js';
import { raftAutopilotStateEndpoint } from './raft-autopilot-state.js';
import { raftSnapshotConfigsEndpoint, snapshotNames, snapshotsDroppedFamily, type SnapshotNames } from './raft-snapshot-configs.js';
import { raftSnapshotStatusEndpoint } from './raft-snapshot-status.js';
import { sealBackendStatusEndpoint } from './seal-backend-status.js';
import { sealStatusEndpoint } from './seal-status.js';
import { replicationStatusEndpoint, type ReplicationStatus } from './replication-status.js';
import { sealedFamily, sealedFrom } from './seal.js';
import type { SecretsTarget } from './target.js';
import { tokenLookupSelfEndpoint } from './token-lookup-self.js';

type T = SecretsTarget;
type C = SecretsCall;

const token = call(tokenLookupSelfEndpoint, { on: { test: (t: T) => t.token_file !== undefined, says: 'on targets with a token_file' } });
const statuses = call(replicationStatusEndpoint, {
  each: { says: 'once per kind of `replication_kinds`', items: (t: T) => t.replication_kinds, labels: (kind) => ({ kind }) },
});
const statusOf = (e: Earlier): ReadonlyMap<string, ReplicationStatus> =>
  new Map(e.of(statuses).flatMap((o) => (o.value && o.item ? [[o.item, o.value] as const] : [])));

/**
 * Every configured kind's status, with what follows from it: the seal, the count of primary changes
 * and, on a DR secondary only (the endpoint exists nowhere else), the DR operation token attempt.
 */
export const replicationPlan: Plan<T, C> = {
  job: 'secrets_replication',
  schedule: { of: (t) => t.schedule, key: 'schedule' },
  // The token's part first: the statuses say more.
  steps: [
    token,
    statuses,
    derive<T, C, boolean | undefined>({ name: 'seal', after: [statuses], families: [sealedFamily], value: (_t, e) => sealedFrom(e.of(statuses)) }),
    derive({ name: 'primary_changes', after: [statuses], families: [primaryChangesFamily], value: (_t, e, c: C) => c.countChanges(statusOf(e)) }),
    call(drOperationTokenAttemptEndpoint, {
      after: [statuses],
      if: { says: 'on a DR secondary (its DR status says so)', test: (e) => statusOf(e).get('dr')?.mode === 'secondary' },
    }),
  ],
};

/** The merkle check makes the service walk its trees: on its own schedule, and on demand never more often. */
export const merklePlan: Plan<T, C> = {
  job: 'secrets_merkle_check',
  schedule: { of: (t) => t.merkle_check?.schedule ?? t.schedule, key: 'merkle_check.schedule' },
  on: { test: (t) => t.merkle_check !== undefined, says: 'with `merkle_check` set' },
  minIntervalSeconds: (t) => (t.merkle_check ? scheduleIntervalSeconds(t.merkle_check.schedule) : undefined),
  steps: [call(merkleCheckEndpoint, { via: { says: 'with `merkle_check.timeout`', client: (c: C) => c.merkleClient() } })],
};

const ha = call(haStatusEndpoint);
const autopilot = call(raftAutopilotStateEndpoint);
const leader = call(leaderEndpoint);
/** The nodes found, each with its name. */
type NodesFound = Discovery & { readonly names: ReadonlyMap<string, string> };

/** The nodes to poll: listed, else found in the HA status and autopilot (the last ones found while an error hides them), and their names. */
const found = derive<T, C, NodesFound>({
  name: 'nodes_found',
  after: [ha, autopilot],
  families: [],
  value: (t, e, c) => {
    const d = orLast(
      discover({
        configured: t.nodes.addresses,
        address: t.address,
        addressing: c.addressing,
        ha: e.of(ha)[0]!,
        autopilot: e.of(autopilot)[0]!,
        known: c.discovery.known,
        templated: t.nodes.address_template !== undefined,
        max: t.nodes.max_nodes,
      }),
      c.discovery.last,
    );
    c.discovery.last = d;
    c.nodes.keepOnly(d.nodes);
    c.audited.nodes.keepOnly(d.nodes);
    const names = c.discovery.names.name({ nodes: d.nodes, ha: e.of(ha)[0]?.value, autopilot: e.of(autopilot)[0]?.value, raftIds: d.raftIds });
    return { ...d, names };
  },
});

const namesOf = (e: Earlier) => e.of(found)[0]?.value?.names;
/** A node's part is labelled by its name and its API address. */
const byNode = (address: string, e: Earlier) => nodeLabels(namesOf(e), address);

const atNode = { says: "at the node's own address", client: (c: C, node: string) => c.nodes.client(node) };

/** Each node's health, at the node's own address: a node that does not answer is the node's failure, which its `_up` reports. */
const health = call(nodeHealthEndpoint, {
  each: { says: 'once per node found', items: (_t: T, e: Earlier) => e.of(found)[0]?.value?.nodes ?? [], labels: byNode },
  after: [found],
  via: atNode,
  reportedByUp: true,
});

/** A step called at each node that answered its health, at its own address (a node that did not is not asked again in the same poll). */
export const perAnsweringNode = {
  each: {
    says: 'once per node found that answered `secrets/node-health`',
    items: (_t: T, e: Earlier) => e.of(health).flatMap((o) => (o.error || o.item === undefined ? [] : [o.item])),
    labels: byNode,
  },
  after: [health],
  via: atNode,
  reportedByUp: true,
} as const;

const auditChecked = {
  test: (t: T) => t.token_file !== undefined && t.nodes.audit_check.enabled,
  says: 'on targets with a token_file and `nodes.audit_check.enabled`',
};

/** The audited request at the configured address, with its own short timeout: it stands for the nodes the token does not go to. */
const auditedAtAddress = call(auditedRequestEndpoint, {
  on: auditChecked,
  via: { says: 'with `nodes.audit_check.timeout`', client: (c: C) => c.audited.client() },
  reportedByUp: true,
});

/** The audited request at each node that answered its health, where the token may go (listed, templated or allowed nodes, never one an answer alone names). */
const auditedAtNode = call(nodeAuditedRequestEndpoint, {
  on: auditChecked,
  ...perAnsweringNode,
  each: {
    ...perAnsweringNode.each,
    says: 'once per node found that answered `secrets/node-health` and that vigil sends its token to (`nodes.audit_check.send_token_to`)',
    items: (t: T, e: Earlier, c: C) => perAnsweringNode.each.items(t, e).filter((n) => c.audited.mayReceiveToken(n)),
  },
  via: { says: "at the node's own address, with `nodes.audit_check.timeout`", client: (c: C, node: string) => c.audited.nodes.client(node) },
});

/** Whether the cluster, and each node asked, serves the requests it audits while its health says it serves. */
const requestsBlocked = derive<T, C, RequestsBlocked>({
  name: 'requests_blocked',
  after: [health, auditedAtAddress, auditedAtNode],
  families: requestsBlockedFamilies,
  value: (_t, e) => {
    const healthOf = new Map(e.of(health).flatMap((o) => (o.value && o.item ? [[o.item, o.value] as const] : [])));
    const atAddress = e.of(auditedAtAddress)[0]?.value;
    return {
      cluster: [...healthOf.values()].some(serves) && atAddress ? atAddress.blocked : undefined,
      nodes: e.of(auditedAtNode).flatMap((o) => {
        const blocked = o.item === undefined ? undefined : nodeBlocked(healthOf.get(o.item), o.value);
        return blocked === undefined ? [] : [{ labels: byNode(o.item!, e), blocked }];
      }),
    };
  },
});

/**
 * The node poll of one cluster, on its own schedule: the HA status, autopilot state and leader at the
 * configured address, then each node found (or listed) at its own address, and what follows across
 * them: the nodes found and from where, the active node and its changes.
 */
export const nodesPlan: Plan<T, C> = {
  job: 'secrets_nodes',
  schedule: { of: (t) => t.nodes.schedule ?? t.schedule, key: 'nodes.schedule' },
  on: { test: (t) => t.nodes.enabled, says: 'with `nodes.enabled`' },
  steps: [
    ha,
    autopilot,
    leader,
    found,
    health,
    call(sealStatusEndpoint, perAnsweringNode),
    call(sealBackendStatusEndpoint, perAnsweringNode),
    auditedAtAddress,
    auditedAtNode,
    requestsBlocked,
    derive<T, C, ClusterNodes>({
      name: 'cluster_nodes',
      after: [found, leader],
      families: [...discoveryFamilies, ...activeNodeFamilies, ...haNodeFamilies],
      value: (t, e, c) => {
        const { names, ...discovery } = e.of(found)[0]!.value!;
        const haView = e.of(ha)[0]?.value;
        const active = activeNode(haView, e.of(leader)[0]?.value, discovery.nodes, t.address);
        return { discovery, names, ha: haView, active, changes: c.activeNodes.see(t.name, active) };
      },
    }),
  ],
};

// A run-time condition, not a target's: the names' step comes after it whether it lists or not.
const listed = call(raftSnapshotConfigsEndpoint, { if: { says: 'with `snapshots.list`', test: (_e: Earlier, c: C) => c.target.snapshots?.list === true } });
/**
 * The configured names first, then the listed ones, bounded; a listing that failed (not one refused)
 * stands for the last one, so a passing error does not drop the listed names' series and memory. A
 * name no longer polled is forgotten with its last success.
 */
const snapshotNamesStep = derive<T, C, SnapshotNames>({
  name: 'snapshot_names',
  after: [listed],
  families: [snapshotsDroppedFamily],
  value: (t, e, c) => {
    const listing = e.of(listed)[0];
    if (!listing?.error) c.snapshots.listed = listing?.value ?? [];
    const s = snapshotNames(t.snapshots?.names ?? [], c.snapshots.listed, t.snapshots?.max_names ?? 0);
    for (const n of c.snapshots.successes.keys()) if (!s.names.includes(n)) c.snapshots.successes.delete(n);
    return s;
  },
});

/** Each automated snapshot configuration's status, on the block's own schedule (a snapshot's interval is hours). */
export const snapshotsPlan: Plan<T, C> = {
  job: 'secrets_snapshots',
  schedule: { of: (t) => t.snapshots?.schedule ?? t.schedule, key: 'snapshots.schedule' },
  on: { test: (t) => t.snapshots !== undefined, says: 'with `snapshots` set' },
  steps: [
    listed,
    snapshotNamesStep,
    call(raftSnapshotStatusEndpoint, {
      each: {
        says: 'once per configuration of `snapshots.names` and, with `snapshots.list`, listed',
        items: (_t: T, e: Earlier) => e.of(snapshotNamesStep)[0]?.value?.names ?? [],
        labels: (name) => ({ name }),
      },
      after: [snapshotNamesStep],
    }),
  ],
};
