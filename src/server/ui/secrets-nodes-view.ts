import type { ClusterNodes, SecretsCluster, SecretsNode } from '../estate-model.js';
import { address, badge, esc, table, toleranceBadge } from './html.js';

/** A node by its name, with the API address vigil polls it at beside it where the two differ. */
const nodeCell = (n: { name: string; address: string }): string =>
  n.name === n.address ? `<code>${address(n.address)}</code>` : `<code>${esc(n.name)}</code> <span class="muted">${address(n.address)}</span>`;

/** A secrets cluster's nodes on the estate page: a line of quorum badges on its card, a row per node. */

const ROLE_NAMES: Record<string, string> = { performance_standby: 'performance standby', dr_secondary: 'DR secondary' };

/** The card's line: the active node, raft voters and failure tolerance, autopilot health, where the nodes came from. */
export function nodesSummary(n: ClusterNodes | null): string {
  if (!n) return '';
  const raft = n.raft;
  const parts = [
    n.activeNode === null ? badge('no active node reported', 'warn') : `active node ${nodeCell(n.activeNode)}`,
    raft?.voters === null || raft?.voters === undefined ? '' : `${esc(raft.voters)} voters`,
    raft?.failureTolerance === null || raft?.failureTolerance === undefined ? '' : toleranceBadge(raft.failureTolerance, raft.voters),
    raft?.optimisticFailureTolerance === null || raft?.optimisticFailureTolerance === undefined
      ? ''
      : `<span class="muted">optimistic ${esc(raft.optimisticFailureTolerance)}</span>`,
    raft?.healthy === null || raft?.healthy === undefined ? '' : badge(raft.healthy ? 'autopilot healthy' : 'autopilot unhealthy', raft.healthy ? 'ok' : 'bad'),
    n.source === 'address_only' ? badge(`nodes not listed${n.reason ? ` (${n.reason})` : ''}: configured address only`, 'muted') : '',
  ].filter(Boolean);
  return `<p class="nodes-summary">${parts.join(' · ')}</p>`;
}

function nodeRow(c: SecretsCluster, n: SecretsNode, active: ClusterNodes['activeNode']): string {
  const role = n.role === null ? '<span class="muted">—</span>' : esc(ROLE_NAMES[n.role] ?? n.role);
  const sealed = n.sealed === null ? '—' : n.sealed ? badge('sealed', 'bad') : badge('unsealed', 'ok');
  const bad = !n.up || n.sealed === true;
  const mark = n.address === active?.address ? ' <span class="muted">(active)</span>' : '';
  return `<tr class="${bad ? 'row-bad' : ''}"><th scope="row">${esc(c.target)}</th><td>${nodeCell(n)}${mark}</td><td>${n.up ? badge('up', 'ok') : badge('unreachable', 'bad')}</td><td>${role}</td><td>${sealed}</td><td>${n.version === null ? '—' : esc(n.version)}</td></tr>`;
}

/** Every cluster's nodes in one table; nothing when no cluster reports nodes. */
export function nodesTable(clusters: readonly SecretsCluster[]): string {
  const rows = clusters.flatMap((c) => (c.nodes ? c.nodes.nodes.map((n) => nodeRow(c, n, c.nodes?.activeNode ?? null)) : []));
  return rows.length ? `<h3>Nodes</h3>${table('Nodes', ['cluster', 'node', 'health', 'role', 'seal', 'version'], rows)}` : '';
}
