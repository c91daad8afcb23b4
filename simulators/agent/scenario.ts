import { z } from 'zod';
import type { WorkloadSpec } from './jobs.js';
import type { FleetSpec } from './nodes.js';

export type AgentRole = 'server' | 'client' | 'both';
/** Agent, node and operator policies, and the namespace capabilities the workload's listings need (every namespace alike). */
export type AclPolicy = 'agent:read' | 'agent:write' | 'node:read' | 'operator:read' | 'namespace:list-jobs' | 'namespace:read-job';

export interface AgentSpec {
  /** Node name, e.g. 'server-1'. */
  name: string;
  /** 0 or undefined picks a free port. */
  port?: number;
  role: AgentRole;
  region?: string;
  datacenter?: string;
  version?: string;
  /** Server agents: size of the gossip pool reported by /agent/members, itself included. */
  members?: number;
  /** Client agents: known servers (`ip:port`). */
  servers?: string[];
  /** Client agents: stats.client.num_allocations. */
  allocations?: number;
  /** Nomad Enterprise: answers `/v1/operator/license` (the community edition's 204 without it). */
  enterprise?: boolean;
}

export interface AclSpec {
  enabled: boolean;
  tokens?: Array<{ secret: string; policies: AclPolicy[] }>;
}

export interface AgentScenario {
  agents: AgentSpec[];
  acl?: AclSpec;
  /** The client nodes of each region (`/v1/nodes`); 4 nodes of pool `default` when absent. */
  nodes?: FleetSpec;
  /** The jobs of each region (`/v1/jobs`, with their evaluations and deployments); a small healthy workload when absent. */
  jobs?: WorkloadSpec;
}

export const AGENT_DEFAULTS = { region: 'global', datacenter: 'dc1', version: '1.9.3', members: 3 } as const;

/** What the demo runs: a small healthy cluster behind ACLs, so the exporter has to use its token. */
export function demoAgentScenario(): AgentScenario {
  return {
    agents: [
      // 'both' keeps every collector of the demo answering; a server-only agent answers 501 on /agent/servers.
      { name: 'server-1', role: 'both', members: 6, allocations: 3 },
      { name: 'client-1', role: 'client', allocations: 7 },
    ],
    acl: { enabled: true },
    nodes: { count: 6, pools: ['default', 'batch'] },
  };
}

const policy = z.enum(['agent:read', 'agent:write', 'node:read', 'operator:read', 'namespace:list-jobs', 'namespace:read-job']);
const count = z.number().int().min(0);

const scenarioSchema = z.object({
  agents: z
    .array(
      z.object({
        name: z.string().min(1),
        port: z.number().int().min(0).max(65535).optional(),
        role: z.enum(['server', 'client', 'both']),
        region: z.string().min(1).optional(),
        datacenter: z.string().min(1).optional(),
        version: z.string().min(1).optional(),
        members: z.number().int().min(1).optional(),
        servers: z.array(z.string()).optional(),
        allocations: count.optional(),
        enterprise: z.boolean().optional(),
      }),
    )
    .min(1),
  nodes: z
    .object({
      count: count,
      pools: z.array(z.string().min(1)).min(1).optional(),
      datacenters: z.array(z.string().min(1)).min(1).optional(),
      classes: z.array(z.string()).min(1).optional(),
    })
    .optional(),
  jobs: z
    .object({
      count: count,
      namespaces: z
        .array(z.string().regex(/^[a-zA-Z0-9-]{1,128}$/))
        .min(1)
        .optional(),
      allocations: z.number().int().min(1).max(1000).optional(),
    })
    .optional(),
  acl: z
    .object({
      enabled: z.boolean(),
      tokens: z.array(z.object({ secret: z.string().min(1), policies: z.array(policy) })).optional(),
    })
    .optional(),
});

/** Checks a scenario read from a file (or built by hand) before any listener starts. */
export function parseAgentScenario(value: unknown): AgentScenario {
  const scenario: AgentScenario = scenarioSchema.parse(value);
  const seen = new Set<string>();
  for (const a of scenario.agents) {
    if (seen.has(a.name)) throw new Error(`agent name used twice: ${a.name}`);
    seen.add(a.name);
  }
  return scenario;
}
