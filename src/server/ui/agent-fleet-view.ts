import type { AgentFleet, AgentView } from '../estate-model.js';
import { poolName } from '../pool-name.js';
import { badge, esc, table, toleranceBadge } from './html.js';

/** An agent's region on the estate page: a line of autopilot badges on its card, a row per region and client node pool. */

/** The card's line: autopilot failure tolerance, health and voters. */
export function autopilotSummary(fleet: AgentFleet): string {
  const a = fleet.autopilot;
  if (!a) return '';
  const parts = [
    a.failureTolerance === null ? '' : toleranceBadge(a.failureTolerance, a.voters),
    a.healthy === null ? '' : badge(a.healthy ? 'autopilot healthy' : 'autopilot unhealthy', a.healthy ? 'ok' : 'bad'),
    a.voters === null ? '' : `${esc(a.voters)} voters`,
  ].filter(Boolean);
  return parts.length ? `<p class="autopilot-summary">${parts.join(' · ')}</p>` : '';
}

/** Problems that page (a service down or short, allocations failing); the others warn. */
const PAGES = new Set(['no running allocation', 'dead', 'deployment short', 'failing']);

/** The card's line on the region's workload: the jobs with problems, the evaluations blocked; nothing when the agent lists none. */
export function workloadSummary(fleet: AgentFleet): string {
  const w = fleet.workload;
  if (!w) return '';
  const jobs = w.jobs.length + w.moreJobs;
  const tone = w.jobs.some((j) => PAGES.has(j.problem)) ? 'bad' : 'warn';
  const parts = [
    jobs ? badge(`${jobs} job${jobs > 1 ? 's' : ''} with problems`, tone) : badge('jobs ok', 'ok'),
    w.blockedEvaluations ? badge(`${w.blockedEvaluations} evaluation${w.blockedEvaluations > 1 ? 's' : ''} blocked`, 'warn') : '',
  ].filter(Boolean);
  return `<p class="workload-summary">${parts.join(' · ')}</p>`;
}

const count = (n: number, tone: 'bad' | 'warn') => (n > 0 ? badge(String(n), tone) : '0');

type Pool = AgentFleet['pools'][number];
interface RegionPool extends Pool {
  region: string | null;
  /** The agents that list this pool's nodes: each region's agents all list the same nodes. */
  agents: string[];
}

/**
 * One row per region and pool: every agent of a region lists the region's nodes, so the counts of
 * the first agent (by target) stand for the region; an agent whose region is unknown is a region of its own.
 * Sorted by region, then pool.
 */
function regionPools(agents: readonly AgentView[]): RegionPool[] {
  const rows = new Map<string, RegionPool>();
  for (const a of [...agents].sort((x, y) => x.target.localeCompare(y.target))) {
    for (const p of a.fleet.pools) {
      const key = JSON.stringify([a.region ?? `\u0000${a.target}`, p.pool]);
      const row = rows.get(key);
      if (row) row.agents.push(a.target);
      else rows.set(key, { ...p, region: a.region, agents: [a.target] });
    }
  }
  return [...rows.values()].sort((a, b) => (a.region ?? '').localeCompare(b.region ?? '') || a.pool.localeCompare(b.pool));
}

function poolRow(p: RegionPool): string {
  const region = p.region === null ? `<span class="muted">unknown (${esc(p.agents[0])})</span>` : esc(p.region);
  return `<tr class="${p.down > 0 ? 'row-bad' : ''}"><th scope="row">${region}</th><td>${esc(poolName(p.pool))}</td><td>${esc(p.ready)}</td><td>${count(p.down, 'bad')}</td><td>${count(p.disconnected, 'warn')}</td><td class="muted">${p.agents.map(esc).join(', ')}</td></tr>`;
}

/** The client nodes per region and pool in one table; nothing when no agent lists nodes. */
export function poolsTable(agents: readonly AgentView[]): string {
  const rows = regionPools(agents).map(poolRow);
  return rows.length ? `<h3>Client nodes</h3>${table('Client nodes', ['region', 'pool', 'ready', 'down', 'disconnected', 'listed by'], rows)}` : '';
}
