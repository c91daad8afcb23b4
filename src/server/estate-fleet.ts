import { READS as R, flag, of, ofTarget, one, type Families } from './estate-families.js';
import type { AgentFleet, AgentView } from './estate-model.js';
import { agentWorkload, jobLine } from './estate-workload.js';
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
  return { autopilot, pools: pools(f, target), workload: agentWorkload(f, target) };
}

interface RegionProblem {
  line: string;
  same: string;
  exact: string | null;
}

/**
 * What is wrong with the region: a quorum that cannot lose another server, each pool with nodes
 * down, each job with a problem and the evaluations blocked; each with `same`, what makes another agent's line the same problem once its region is
 * known, and `exact`, what must match too when it is not.
 */
export function fleetProblems(fleet: AgentFleet): RegionProblem[] {
  const problems: RegionProblem[] = [];
  if (fleet.autopilot?.failureTolerance === 0)
    problems.push({ line: 'autopilot failure tolerance 0: one more server lost stops the region', same: 'autopilot', exact: null });
  for (const p of fleet.pools)
    if (p.down > 0)
      problems.push({
        line: `pool ${poolName(p.pool)}: ${p.down} client node${p.down > 1 ? 's' : ''} down`,
        same: `pool ${p.pool}`,
        exact: `${p.ready} ${p.down} ${p.disconnected}`,
      });
  for (const j of fleet.workload?.jobs ?? []) {
    const line = jobLine(j);
    problems.push({ line, same: `job ${j.namespace}\0${j.job}\0${j.problem}`, exact: line });
  }
  const w = fleet.workload;
  if (w && w.moreJobs > 0)
    problems.push({ line: `${w.moreJobs} more job${w.moreJobs > 1 ? 's' : ''} with problems`, same: 'more jobs', exact: String(w.moreJobs) });
  if (w && w.blockedEvaluations > 0) {
    const line = `${w.blockedEvaluations} evaluation${w.blockedEvaluations > 1 ? 's' : ''} blocked`;
    problems.push({ line, same: 'evaluations blocked', exact: line });
  }
  return problems;
}

/**
 * Every agent of a region reports the region's quorum and pools: a problem of the region is one
 * line, the first agent's (by target), with the others that report it under it. Where vigil knows
 * no region for the agents (no scheduler_agent_info), only a pool with the very same counts is
 * taken for the same, the best guess that the agents list one cluster's nodes.
 */
export function oneLinePerRegion(agents: AgentView[]): AgentView[] {
  const first = new Map<string, { agent: AgentView; line: string }>();
  for (const a of [...agents].sort((x, y) => x.target.localeCompare(y.target))) {
    for (const p of fleetProblems(a.fleet)) {
      const key = a.region !== null ? `${a.region}\0${p.same}` : p.exact !== null ? `\0${p.same}\0${p.exact}` : null;
      if (key === null) continue;
      const seen = first.get(key);
      if (!seen) {
        first.set(key, { agent: a, line: p.line });
        continue;
      }
      a.problems = a.problems.filter((x) => x !== p.line);
      const under = seen.agent.consequences.find((c) => c.cause === seen.line);
      const also = `also reported by agent ${a.target}`;
      if (under) under.lines.push(also);
      else seen.agent.consequences.push({ cause: seen.line, lines: [also] });
    }
  }
  return agents;
}
