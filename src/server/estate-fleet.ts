import { READS as R, flag, of, ofTarget, one, type Families } from './estate-families.js';
import type { AgentFleet } from './estate-model.js';
import { poolName } from './pool-name.js';

/**
 * An agent's region as the status page shows it: autopilot's failure tolerance, health and voters,
 * and the client nodes counted per pool by status. Pure, like buildEstate.
 */

type Pool = AgentFleet['pools'][number];
const COUNTED = ['ready', 'down', 'disconnected'] as const;
const isCounted = (s: string): s is (typeof COUNTED)[number] => (COUNTED as readonly string[]).includes(s);

function pools(f: Families, target: string): Pool[] {
  const byPool = new Map<string, Pool>();
  for (const s of of(ofTarget(f, [R.agentClientNodes], target), R.agentClientNodes)) {
    const pool = s.labels.node_pool ?? '';
    let p = byPool.get(pool);
    if (!p) byPool.set(pool, (p = { pool, ready: 0, down: 0, disconnected: 0 }));
    const status = s.labels.status ?? '';
    if (isCounted(status)) p[status] += s.value;
  }
  return [...byPool.values()].sort((a, b) => a.pool.localeCompare(b.pool));
}

export function agentFleet(f: Families, target: string): AgentFleet {
  const t = { target };
  const healthy = one(f, R.agentAutopilotHealthy, t);
  const tolerance = one(f, R.agentAutopilotFailureTolerance, t);
  const voters = one(f, R.agentAutopilotVoters, t);
  const autopilot =
    healthy === undefined && tolerance === undefined && voters === undefined
      ? null
      : { healthy: flag(healthy), failureTolerance: tolerance ?? null, voters: voters ?? null };
  return { autopilot, pools: pools(f, target) };
}

/** What is wrong with the region: a quorum that cannot lose another server, and each pool with nodes down. */
export function fleetProblems(fleet: AgentFleet): string[] {
  const problems: string[] = [];
  if (fleet.autopilot?.failureTolerance === 0) problems.push('autopilot failure tolerance 0: one more server lost stops the region');
  for (const p of fleet.pools) if (p.down > 0) problems.push(`pool ${poolName(p.pool)}: ${p.down} client node${p.down > 1 ? 's' : ''} down`);
  return problems;
}
