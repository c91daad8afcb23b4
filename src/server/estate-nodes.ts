import { READS as R, flag, of, ofTarget, one, type Families } from './estate-families.js';
import type { ClusterNodes, SecretsNode } from './estate-model.js';
import type { Found, ProblemKind } from './problem-causes.js';

/**
 * A secrets cluster's nodes as the status page shows them, from the node families: each node's
 * reachability, role, seal and version, the active node, and the raft quorum (failure tolerance,
 * voters, autopilot health) where the cluster reports one. Pure, like buildEstate.
 */

function node(f: Families, target: string, name: string, address: string, up: boolean): SecretsNode {
  const k = { target, node: name, address };
  return {
    name,
    address,
    up,
    role: of(f, R.nodeRole, k).find((s) => s.value === 1)?.labels.role ?? null,
    sealed: flag(one(f, R.nodeSealed, k)),
    initialized: flag(one(f, R.nodeInitialized, k)),
    version: of(f, R.nodeInfo, k)[0]?.labels.version || null,
    requestsBlocked: flag(one(f, R.nodeRequestsBlocked, k)),
  };
}

const orNull = (v: number | undefined) => v ?? null;

/** The active node as its series names it: the same name and address as its row. */
const activeOf = (l: Readonly<Record<string, string>> | undefined): ClusterNodes['activeNode'] =>
  l?.node === undefined ? null : { name: l.node, address: l.address ?? l.node };

const NODE_FAMILIES = [R.nodeUp, R.nodeInitialized, R.nodeSealed, R.nodeRole, R.nodeInfo, R.nodeRequestsBlocked];

/** The cluster's nodes, or null when vigil exports no node series for it (node polling off). */
export function clusterNodes(f: Families, target: string): ClusterNodes | null {
  const t = { target };
  const own = ofTarget(f, NODE_FAMILIES, target);
  const ups = of(own, R.nodeUp);
  const discovery = of(f, R.nodeDiscoveryInfo, t)[0];
  const voters = one(f, R.raftVoters, t);
  const healthy = one(f, R.raftAutopilotHealthy, t);
  if (ups.length === 0 && !discovery && voters === undefined && healthy === undefined) return null;
  const tolerance = one(f, R.raftFailureTolerance, t);
  const raft =
    voters === undefined && healthy === undefined && tolerance === undefined
      ? null
      : {
          healthy: flag(healthy),
          failureTolerance: orNull(tolerance),
          optimisticFailureTolerance: orNull(one(f, R.raftOptimisticFailureTolerance, t)),
          voters: orNull(voters),
        };
  return {
    source: discovery?.labels.source || null,
    reason: discovery?.labels.reason || null,
    activeNode: activeOf(of(f, R.activeNodeInfo, t).find((s) => s.value === 1)?.labels),
    nodes: ups
      .map((s) => node(own, target, s.labels.node ?? '', s.labels.address ?? '', s.value === 1))
      .sort((a, b) => a.name.localeCompare(b.name) || a.address.localeCompare(b.address)),
    raft,
  };
}

/** A node as a problem line names it: its name, with its address beside it where the two differ. */
export const nodeTitle = (n: { name: string; address: string }): string => (n.name === n.address ? n.address : `${n.name} (${n.address})`);

const named = (kind: ProblemKind, what: string, nodes: string[]): Found[] =>
  nodes.length ? [{ kind, line: `node${nodes.length > 1 ? 's' : ''} ${nodes.join(', ')} ${what}` }] : [];

/**
 * What is wrong with the nodes, each with its kind (problem-causes.ts folds them by cause). A
 * sealed cluster's sealed nodes, and an unreachable cluster's unreachable nodes, are that one
 * problem the cluster card already names.
 */
export function nodeProblems(n: ClusterNodes, clusterSealed: boolean | null, clusterUnreadable: boolean): Found[] {
  const problems: Found[] = [];
  const down = n.nodes.filter((x) => !x.up);
  const wholeClusterDown = clusterUnreadable && down.length === n.nodes.length;
  if (!clusterSealed) problems.push(...named('node-sealed', 'sealed', n.nodes.filter((x) => x.up && x.sealed).map(nodeTitle)));
  if (!wholeClusterDown) problems.push(...named('node-unreachable', 'unreachable', down.map(nodeTitle)));
  problems.push(
    ...named(
      'requests-blocked',
      'blocked: audit devices cannot log, nothing audited is served',
      n.nodes.filter((x) => x.up && x.requestsBlocked).map(nodeTitle),
    ),
  );
  if (n.raft?.failureTolerance === 0) problems.push({ kind: 'raft-tolerance-lost', line: 'raft failure tolerance 0: one more voter lost stops the cluster' });
  if (n.raft?.healthy === false) problems.push({ kind: 'raft-autopilot-unhealthy', line: 'raft autopilot unhealthy' });
  return problems;
}
