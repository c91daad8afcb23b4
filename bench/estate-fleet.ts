/**
 * What the agent regions cost the estate page: the same agents, as exposition text, built and
 * rendered (buildEstate + renderEstate, what `/` and `/api/v1/estate` do per request) without
 * autopilot or node series, and with autopilot health and client node counts of 4 pools × 3
 * datacenters × 4 statuses (48 series) per agent. One run compares them.
 *
 *   node --import tsx bench/estate-fleet.ts [agents=200] [rounds=50]
 */
import { NOW, printPageCost } from './estate-page-cost.js';

const AGENTS = Number(process.argv[2] ?? 200);
const ROUNDS = Number(process.argv[3] ?? 50);
const STATUSES = ['ready', 'initializing', 'down', 'disconnected'];

function snapshot(fleet: boolean): string {
  const lines: string[] = [];
  for (let a = 0; a < AGENTS; a++) {
    const t = `target="a${a}"`;
    lines.push(`scheduler_agent_up{${t}} 1`, `scheduler_agent_info{${t},name="a${a}",server="true"} 1`, `scheduler_agent_health_ok{${t},role="server"} 1`);
    if (!fleet) continue;
    lines.push(`scheduler_agent_autopilot_healthy{${t}} 1`, `scheduler_agent_autopilot_failure_tolerance{${t}} 1`, `scheduler_agent_autopilot_voters{${t}} 3`);
    lines.push(`scheduler_agent_token_expiry_timestamp_seconds{${t}} ${NOW / 1000 + 30 * 86_400}`);
    for (let p = 0; p < 4; p++)
      for (let d = 0; d < 3; d++)
        for (const status of STATUSES)
          lines.push(
            `scheduler_nodes{${t},datacenter="dc${d}",node_pool="pool${p}",node_class="",status="${status}",eligibility="eligible",drain="false"} ${status === 'ready' ? 10 : 0}`,
          );
  }
  return lines.join('\n') + '\n';
}

printPageCost(
  [false, true].map((fleet) => ({ label: fleet ? 'autopilot and client nodes' : 'neither', text: snapshot(fleet) })),
  ROUNDS,
  'x no fleet',
);
