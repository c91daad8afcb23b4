/**
 * What the nodes cost the estate page: the same estate of secrets clusters, as exposition text,
 * built and rendered (buildEstate + renderEstate, what `/` and `/api/v1/estate` do per request)
 * without node series, and with three and five nodes per cluster. One run compares the three.
 *
 *   node --import tsx bench/estate-nodes.ts [clusters=200] [rounds=50]
 */
import { printPageCost } from './estate-page-cost.js';

const CLUSTERS = Number(process.argv[2] ?? 200);
const ROUNDS = Number(process.argv[3] ?? 50);

function snapshot(nodes: number): string {
  const lines: string[] = [];
  for (let c = 0; c < CLUSTERS; c++) {
    const t = `target="c${c}"`;
    lines.push(`secrets_replication_up{${t},kind="dr"} 1`, `secrets_replication_mode{${t},kind="dr",mode="primary"} 1`, `secrets_sealed{${t}} 0`);
    if (nodes === 0) continue;
    lines.push(
      `secrets_node_discovery_info{${t},source="ha_status",reason=""} 1`,
      `secrets_active_node_info{${t},node="c${c}-n0",address="https://c${c}-n0:8200"} 1`,
    );
    lines.push(`secrets_raft_voters{${t}} ${nodes}`, `secrets_raft_failure_tolerance{${t}} ${(nodes - 1) >> 1}`, `secrets_raft_autopilot_healthy{${t}} 1`);
    for (let n = 0; n < nodes; n++) {
      const k = `${t},node="c${c}-n${n}",address="https://c${c}-n${n}:8200"`;
      lines.push(`secrets_node_up{${k}} 1`, `secrets_node_sealed{${k}} 0`, `secrets_node_initialized{${k}} 1`);
      for (const role of ['active', 'standby', 'performance_standby', 'dr_secondary', 'removed'])
        lines.push(`secrets_node_role{${k},role="${role}"} ${n === 0 && role === 'active' ? 1 : 0}`);
      lines.push(`secrets_node_info{${k},version="1.17.3",cluster_name="c${c}"} 1`);
    }
  }
  return lines.join('\n') + '\n';
}

printPageCost(
  [0, 3, 5].map((nodes) => ({ label: `${nodes} nodes`, text: snapshot(nodes) })),
  ROUNDS,
  'x no nodes',
);
