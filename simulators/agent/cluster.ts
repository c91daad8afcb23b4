import { AgentModel } from './agent.js';
import { RegionAutopilot } from './autopilot.js';
import { RPC_PORT, hostIp } from './identity.js';
import type { ServerHost } from './members.js';
import { FLEET_DEFAULTS, NodeFleet } from './nodes.js';
import { AGENT_DEFAULTS, type AgentScenario, type AgentSpec } from './scenario.js';
import { Workload } from './workload.js';

const DEFAULT_KNOWN_SERVERS = 3;

const regionOf = (spec: AgentSpec): string => spec.region ?? AGENT_DEFAULTS.region;

/**
 * Builds the agents of a scenario so they agree with each other: servers of a region list each
 * other in their pools, the first of them leads, and clients know that region's servers.
 */
export function buildAgents(scenario: AgentScenario): AgentModel[] {
  const specs = scenario.agents;
  const reserved = new Set(specs.map((s) => s.name));
  const servers: Array<ServerHost & { region: string }> = specs.flatMap((spec, i) =>
    spec.role === 'client'
      ? []
      : [
          {
            node: spec.name,
            ip: hostIp(i),
            region: regionOf(spec),
            datacenter: spec.datacenter ?? AGENT_DEFAULTS.datacenter,
            version: spec.version ?? AGENT_DEFAULTS.version,
          },
        ],
  );
  const agents = specs.map((spec, host) => {
    const regionServers = servers.filter((s) => s.region === regionOf(spec));
    const leader = regionServers[0];
    return new AgentModel({
      spec,
      host,
      pool: {
        peers: regionServers.filter((s) => s.node !== spec.name),
        reserved,
        firstGeneratedHost: specs.length,
      },
      leader: leader?.node === spec.name,
      leaderIp: leader?.ip,
    });
  });
  const autopilots = new Map<string, RegionAutopilot>();
  for (const agent of agents) {
    const spec = specs.find((s) => s.name === agent.name);
    const pool = agents.find((a) => a.pool && a.region === agent.region)?.pool;
    if (pool && !autopilots.has(agent.region)) autopilots.set(agent.region, new RegionAutopilot(pool.list()));
    agent.autopilot = autopilots.get(agent.region);
    if (agent.isClient && spec?.servers === undefined) agent.setServers(defaultServers(agents, agent.region));
  }
  return agents;
}

/** The RPC addresses of the first servers of the region's leading pool, or made-up ones without a server. */
function defaultServers(agents: AgentModel[], region: string): string[] {
  const pool = agents.find((a) => a.pool && a.region === region)?.pool;
  const hosts = pool
    ? pool
        .list()
        .slice(0, DEFAULT_KNOWN_SERVERS)
        .map((m) => m.Addr)
    : Array.from({ length: DEFAULT_KNOWN_SERVERS }, (_, k) => hostIp(agents.length + k + 1));
  return hosts.map((ip) => `${ip}:${RPC_PORT}`);
}

/** One fleet of client nodes per region, shared by the region's agents (they answer from the same servers). */
export function buildFleets(scenario: AgentScenario, agents: readonly AgentModel[]): Map<string, NodeFleet> {
  const fleets = new Map<string, NodeFleet>();
  for (const a of agents) {
    if (!fleets.has(a.region)) fleets.set(a.region, new NodeFleet(a.region, scenario.nodes ?? FLEET_DEFAULTS, a.version));
  }
  return fleets;
}

/** One workload per region, shared by the region's agents like its fleet. */
export function buildWorkloads(scenario: AgentScenario, agents: readonly AgentModel[]): Map<string, Workload> {
  const workloads = new Map<string, Workload>();
  for (const a of agents) {
    if (!workloads.has(a.region)) workloads.set(a.region, new Workload(a.region, scenario.jobs, scenario.nodes?.count ?? FLEET_DEFAULTS.count));
  }
  return workloads;
}
