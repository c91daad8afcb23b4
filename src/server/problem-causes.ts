import type { Consequences } from './estate-model.js';

/**
 * Which problem explains which: the one table the estate page folds its problem lines by (one line
 * per cause, its consequences under it) and Alertmanager's inhibit_rules must agree with
 * (test/unit/shipped/inhibit-causes.test.ts reads both). Each cause names the alerts that page for
 * it; each consequence the alerts that page for it and what Alertmanager does with them while the
 * cause fires: inhibits them when they are no more severe than the cause (deploy/alertmanager's
 * inhibit_rules, `equal` on the labels given), or keeps paging them when they are more severe, as
 * no warning may silence a critical; the page folds them under the cause either way.
 */

/**
 * A problem by what it is. The page folds the nodes' kinds with foldByCause; what a sealed or
 * unreachable cluster explains it folds where it finds it (nodeProblems leaves those nodes out, the
 * summary lists a collection down under its target's first problem); the seal backends and the
 * licences (secrets and scheduler) only the alerts name.
 */
export type ProblemKind =
  | 'cluster-unreachable'
  | 'cluster-sealed'
  | 'requests-blocked'
  | 'audit-failing'
  | 'replication-unreadable'
  | 'node-sealed'
  | 'node-unreachable'
  | 'raft-tolerance-lost'
  | 'raft-autopilot-unhealthy'
  | 'agent-unreachable'
  | 'teams-unreadable'
  | 'collection-down'
  | 'pool-down'
  | 'secondary-disconnected'
  | 'primary-not-connected'
  | 'seal-backends-unhealthy'
  | 'seal-backend-unhealthy'
  | 'licence-expiring-critical'
  | 'licence-expiring'
  | 'scheduler-licence-expiring-critical'
  | 'scheduler-licence-expiring';

export interface Consequence {
  kind: ProblemKind;
  alerts: readonly string[];
  /**
   * 'inhibited': no more severe than the cause; 'pages': more severe, so Alertmanager keeps paging
   * it; 'no alert': only the page names it.
   */
  alertmanager: 'inhibited' | 'pages' | 'no alert';
}

export interface Cause {
  kind: ProblemKind;
  alerts: readonly string[];
  /** The labels a cause's alert and its consequence's share (the inhibit rule's `equal`). */
  equal: readonly string[];
  explains: readonly Consequence[];
}

const collectionDown: Consequence = { kind: 'collection-down', alerts: ['VigilCollectorFailing', 'VigilCollectionStale'], alertmanager: 'inhibited' };
const nodesOfCluster: Consequence[] = [
  { kind: 'node-unreachable', alerts: ['SecretsNodeUnreachable'], alertmanager: 'inhibited' },
  { kind: 'node-sealed', alerts: ['SecretsNodeSealed'], alertmanager: 'inhibited' },
];
/**
 * What one voter lost (sealed or gone) does to a raft cluster: the tolerance it had, which pages as
 * a critical whatever warns of the node, and autopilot's health, which no alert pages for the
 * cluster as a whole. SecretsRaftServerUnhealthy, autopilot's word on each server, is not the page's
 * line: it names which server, and warns beside the node's warning by design (docs/paging.md).
 */
const quorumOfCluster: Consequence[] = [
  { kind: 'raft-tolerance-lost', alerts: ['SecretsRaftFailureToleranceLost'], alertmanager: 'pages' },
  { kind: 'raft-autopilot-unhealthy', alerts: [], alertmanager: 'no alert' },
];

export const CAUSES: readonly Cause[] = [
  { kind: 'cluster-unreachable', alerts: ['SecretsServiceDown'], equal: ['target'], explains: [...nodesOfCluster, collectionDown] },
  { kind: 'cluster-sealed', alerts: ['SecretsSealed'], equal: ['target'], explains: [...nodesOfCluster, collectionDown] },
  // Audit devices that block: the cluster answers its health and serves nothing, so vigil's own
  // audited calls time out too. One page, for the cause: SecretsServiceDown is left out by its rule
  // and inhibited while this fires.
  {
    kind: 'requests-blocked',
    alerts: ['SecretsRequestsBlocked'],
    equal: ['target'],
    explains: [
      { kind: 'replication-unreadable', alerts: ['SecretsServiceDown'], alertmanager: 'inhibited' },
      // The optional rule on the cluster's own telemetry (alerts/telemetry/): its audit failures are this news.
      { kind: 'audit-failing', alerts: ['SecretsAuditLogFailing'], alertmanager: 'inhibited' },
      ...nodesOfCluster,
      collectionDown,
    ],
  },
  { kind: 'node-sealed', alerts: ['SecretsNodeSealed'], equal: ['target'], explains: quorumOfCluster },
  { kind: 'node-unreachable', alerts: ['SecretsNodeUnreachable'], equal: ['target'], explains: quorumOfCluster },
  { kind: 'agent-unreachable', alerts: ['SchedulerAgentDown'], equal: ['target'], explains: [collectionDown] },
  { kind: 'teams-unreadable', alerts: ['TeamsServiceDown'], equal: ['target'], explains: [collectionDown] },
  // One pool of a region, whichever agents of the region report it (the page keys it by the
  // agents' region). SchedulerNodeDownLong carries no region, so no rule can tie a node to the pool
  // of its own region: it is not inhibited, and stays out of this table.
  { kind: 'pool-down', alerts: ['SchedulerNodePoolDown'], equal: ['region', 'node_pool'], explains: [] },
  // One link between a primary and its secondary, both polled: the primary's alert names it, and
  // the secondary's view of its primary has no alert of its own (estate-links.ts folds it).
  {
    kind: 'secondary-disconnected',
    alerts: ['SecretsReplicationSecondaryDisconnected'],
    equal: ['target', 'kind'],
    explains: [{ kind: 'primary-not-connected', alerts: [], alertmanager: 'no alert' }],
  },
  // Alerts the page does not show; here because their inhibit rules must be in this table too.
  {
    kind: 'seal-backends-unhealthy',
    alerts: ['SecretsSealBackendsUnhealthy'],
    equal: ['target'],
    explains: [{ kind: 'seal-backend-unhealthy', alerts: ['SecretsSealBackendUnhealthy'], alertmanager: 'inhibited' }],
  },
  {
    kind: 'licence-expiring-critical',
    alerts: ['SecretsLicenseExpiryCritical', 'SecretsLicenseExpired'],
    equal: ['target'],
    explains: [{ kind: 'licence-expiring', alerts: ['SecretsLicenseExpiringSoon'], alertmanager: 'inhibited' }],
  },
  {
    kind: 'scheduler-licence-expiring-critical',
    alerts: ['SchedulerLicenseExpiryCritical', 'SchedulerLicenseExpired'],
    equal: ['region'],
    explains: [{ kind: 'scheduler-licence-expiring', alerts: ['SchedulerLicenseExpiringSoon'], alertmanager: 'inhibited' }],
  },
];

/** The line of a primary whose secondary is disconnected, and of a secondary whose primary is not connected. */
export const secondaryLine = (kind: string, id: string) => `${kind} secondary ${id} disconnected`;
export const primaryLine = (kind: string, address: string) => `${kind} primary ${address} not connected`;

/** A problem as found, before folding: its kind (none for one no cause explains nor is) and its line. */
export interface Found {
  kind?: ProblemKind;
  line: string;
}

/** A thing's problem lines, one per cause, and the consequences shown under each cause instead of as problems. */
export interface Folded {
  problems: string[];
  consequences: Consequences;
}

const explains = (cause: ProblemKind, consequence: ProblemKind) => CAUSES.some((c) => c.kind === cause && c.explains.some((x) => x.kind === consequence));

/**
 * One line per cause: each problem some other found problem explains goes under the first such
 * cause (by CAUSES), and out of the count; one no cause present explains stays a line of its own.
 */
export function foldByCause(found: readonly Found[]): Folded {
  const problems: string[] = [];
  const under = new Map<string, string[]>();
  for (const f of found) {
    const cause = f.kind && found.find((c) => c !== f && c.kind && explains(c.kind, f.kind!));
    if (!cause) {
      problems.push(f.line);
      continue;
    }
    const lines = under.get(cause.line) ?? [];
    under.set(cause.line, [...lines, f.line]);
  }
  return { problems, consequences: [...under].map(([cause, lines]) => ({ cause, lines })) };
}
