import type { AgentFleet, AgentView } from '../estate-model.js';
import { poolName } from '../pool-name.js';
import { badge, esc, table } from './html.js';

/** An agent's region on the estate page: a line of autopilot badges on its card, a row per client node pool. */

/** The card's line: autopilot failure tolerance, health and voters. */
export function autopilotSummary(fleet: AgentFleet): string {
  const a = fleet.autopilot;
  if (!a) return '';
  const parts = [
    a.failureTolerance === null
      ? ''
      : badge(`failure tolerance ${a.failureTolerance}`, a.failureTolerance === 0 ? 'bad' : a.failureTolerance === 1 ? 'warn' : 'ok'),
    a.healthy === null ? '' : badge(a.healthy ? 'autopilot healthy' : 'autopilot unhealthy', a.healthy ? 'ok' : 'bad'),
    a.voters === null ? '' : `${esc(a.voters)} voters`,
  ].filter(Boolean);
  return parts.length ? `<p class="autopilot-summary">${parts.join(' · ')}</p>` : '';
}

const count = (n: number, tone: 'bad' | 'warn') => (n > 0 ? badge(String(n), tone) : '0');

function poolRow(a: AgentView, p: AgentFleet['pools'][number]): string {
  return `<tr class="${p.down > 0 ? 'row-bad' : ''}"><th scope="row">${esc(a.target)}</th><td>${esc(poolName(p.pool))}</td><td>${esc(p.ready)}</td><td>${count(p.down, 'bad')}</td><td>${count(p.disconnected, 'warn')}</td></tr>`;
}

/** Every agent's client nodes per pool in one table; nothing when no agent lists nodes. */
export function poolsTable(agents: readonly AgentView[]): string {
  const rows = agents.flatMap((a) => a.fleet.pools.map((p) => poolRow(a, p)));
  return rows.length ? `<h3>Client nodes</h3>${table('Client nodes', ['agent', 'pool', 'ready', 'down', 'disconnected'], rows)}` : '';
}
