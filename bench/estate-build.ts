/**
 * What building the estate costs as the agents grow: buildEstate alone (the model `/` and
 * `/api/v1/estate` render), at each size given, on agents in regions of 3 with their autopilot
 * health, 4 pools × 2 datacenters × 3 statuses of client node counts, and one secrets cluster of 3
 * nodes per 4 agents. Work linear in the agents keeps ms per agent flat from one size to the next.
 *
 *   npx tsx bench/estate-build.ts [sizes=100,400] [rounds=30]
 */
import { buildEstate } from '../src/server/estate.js';

const SIZES = (process.argv[2] ?? '100,400').split(',').map(Number);
const ROUNDS = Number(process.argv[3] ?? 30);
const NOW = Date.parse('2026-11-23T10:00:00Z');

function agentLines(a: number): string[] {
  const t = `target="a${a}"`;
  const region = `r${Math.floor(a / 3)}`;
  const counts = ['ready', 'down', 'disconnected'].flatMap((status) =>
    [0, 1, 2, 3].flatMap((p) =>
      ['dc1', 'dc2'].map(
        (dc) =>
          `scheduler_nodes{${t},datacenter="${dc}",node_pool="p${p}",node_class="",status="${status}",eligibility="eligible",drain="false"} ${status === 'ready' ? 9 : p === 0 ? 1 : 0}`,
      ),
    ),
  );
  return [
    `scheduler_agent_up{${t}} 1`,
    `scheduler_agent_info{${t},name="a${a}",region="${region}",datacenter="dc1",version="1.9.0",server="true"} 1`,
    `scheduler_agent_health_ok{${t},role="server"} 1`,
    `scheduler_agent_known_servers{${t}} 3`,
    `scheduler_agent_autopilot_healthy{${t}} 1`,
    `scheduler_agent_autopilot_failure_tolerance{${t}} 1`,
    `scheduler_agent_autopilot_voters{${t}} 3`,
    ...counts,
  ];
}

function clusterLines(c: number): string[] {
  const t = `target="c${c}"`;
  const nodes = [1, 2, 3].flatMap((n) => {
    const k = `${t},node="https://c${c}n${n}:8200"`;
    return [`secrets_node_up{${k}} 1`, `secrets_node_sealed{${k}} ${n === 3 ? 1 : 0}`, `secrets_node_initialized{${k}} 1`];
  });
  return [
    `secrets_replication_up{${t},kind="dr"} 1`,
    `secrets_sealed{${t}} 0`,
    ...nodes,
    `secrets_raft_failure_tolerance{${t}} 0`,
    `secrets_raft_voters{${t}} 3`,
  ];
}

const snapshot = (agents: number) =>
  [...Array.from({ length: agents }, (_, a) => agentLines(a)), ...Array.from({ length: agents / 4 }, (_, c) => clusterLines(c))].flat().join('\n') + '\n';

const rows = SIZES.map((agents) => {
  const text = snapshot(agents);
  buildEstate(text, [], NOW); // warm up
  // CPU, not wall time: the figures hold on a machine busy with other work.
  const start = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) buildEstate(text, [], NOW);
  const cpu = process.cpuUsage(start);
  const ms = (cpu.user + cpu.system) / 1000 / ROUNDS;
  return { agents, 'snapshot kB': Math.round(text.length / 1024), 'CPU ms / build': ms.toFixed(1), 'µs / agent': ((ms * 1000) / agents).toFixed(0) };
});
console.table(rows);
const [first, last] = [rows[0]!, rows[rows.length - 1]!];
console.log(`${last.agents / first.agents}× the agents: ${(Number(last['CPU ms / build']) / Number(first['CPU ms / build'])).toFixed(1)}× the time`);
