import type { RegionAutopilot } from './autopilot.js';
import { hostIp, stableUuid } from './identity.js';
import { AgentLicense } from './license.js';
import { createAgentTelemetry, type AgentTelemetry } from './telemetry.js';
import { MemberPool, type PoolOptions } from './members.js';
import { AGENT_DEFAULTS, type AgentRole, type AgentSpec } from './scenario.js';

export interface HealthPart {
  ok: boolean;
  message: string;
}

/** The health body: a part is present only when the agent runs that mode. */
export interface AgentHealth {
  client?: HealthPart;
  server?: HealthPart;
}

export type HealthKind = keyof AgentHealth;

/** A client heartbeats its servers this often; last_heartbeat cycles through it while servers are known. */
export const HEARTBEAT_INTERVAL_MS = 10_000;

export interface AgentSetup {
  spec: AgentSpec;
  /** Host number of this agent (see hostIp). */
  host: number;
  /** Server agents: the pool to build; undefined for a client-only agent. */
  pool: Omit<PoolOptions, 'local' | 'region' | 'size'> | undefined;
  /** Whether this server starts as raft leader (the first server of its region). */
  leader: boolean;
  leaderIp: string | undefined;
}

/** The mutable state of one simulated agent; the HTTP layers only read and change it through here. */
export class AgentModel {
  readonly name: string;
  readonly role: AgentRole;
  readonly region: string;
  readonly datacenter: string;
  readonly version: string;
  readonly ip: string;
  readonly nodeId: string;
  readonly pool: MemberPool | undefined;
  readonly leaderIp: string | undefined;
  readonly startedAt = Date.now();
  allocations: number;
  /** Raft stats that replace the computed ones (admin API), e.g. state or last_contact. */
  raftOverride: Record<string, string> = {};
  /** Gossip stats that replace the computed ones (admin API), e.g. health_score. */
  serfOverride: Record<string, string> = {};
  /** Used MB per mount that replaces the computed one (admin API), to fill a disk on demand. */
  diskUsedOverride: Record<string, number> = {};
  /** The Enterprise licence this agent answers with; undefined on the community edition (the scenario's `enterprise`). */
  readonly license: AgentLicense | undefined;
  /** What its own `/v1/metrics` serves that only a fault sets: the plan queue (telemetry.ts). */
  readonly telemetry: AgentTelemetry = createAgentTelemetry();
  /** The region's raft servers as autopilot sees them (shared by the region's agents); undefined in a region without servers. */
  autopilot: RegionAutopilot | undefined;
  httpPort = 0;
  url = '';
  private servers: string[];
  private readonly startsAsLeader: boolean;
  private healthOverride: AgentHealth = {};
  private heartbeatsStoppedAt: number | undefined;

  constructor(setup: AgentSetup) {
    const { spec } = setup;
    this.name = spec.name;
    this.role = spec.role;
    this.region = spec.region ?? AGENT_DEFAULTS.region;
    this.datacenter = spec.datacenter ?? AGENT_DEFAULTS.datacenter;
    this.version = spec.version ?? AGENT_DEFAULTS.version;
    this.ip = hostIp(setup.host);
    this.nodeId = stableUuid(`node:${spec.name}`);
    this.allocations = this.isClient ? (spec.allocations ?? 0) : 0;
    this.servers = this.isClient ? [...(spec.servers ?? [])] : [];
    if (this.isClient && this.servers.length === 0) this.heartbeatsStoppedAt = this.startedAt;
    this.startsAsLeader = setup.leader;
    this.leaderIp = setup.leaderIp;
    this.license = spec.enterprise ? new AgentLicense(spec.name) : undefined;
    this.pool =
      this.isServer && setup.pool
        ? new MemberPool({
            ...setup.pool,
            local: { node: this.name, ip: this.ip, datacenter: this.datacenter, version: this.version },
            region: this.region,
            size: spec.members ?? AGENT_DEFAULTS.members,
          })
        : undefined;
  }

  get isServer(): boolean {
    return this.role !== 'client';
  }

  get isClient(): boolean {
    return this.role !== 'server';
  }

  knownServers(): readonly string[] {
    return this.servers;
  }

  /** Setting an empty list stops heartbeats, so last_heartbeat grows from then on. */
  setServers(servers: string[]): void {
    this.servers = [...servers];
    if (servers.length === 0) this.heartbeatsStoppedAt ??= Date.now();
    else this.heartbeatsStoppedAt = undefined;
  }

  msSinceHeartbeat(now: number): number {
    const since = (t: number): number => (t - this.startedAt) % HEARTBEAT_INTERVAL_MS;
    if (this.heartbeatsStoppedAt === undefined) return since(now);
    return now - this.heartbeatsStoppedAt + since(this.heartbeatsStoppedAt);
  }

  raftState(): string {
    return this.raftOverride.state ?? (this.startsAsLeader ? 'Leader' : 'Follower');
  }

  /**
   * Health as the real agent derives it (a client without servers, a server without a leader is
   * unhealthy), unless the admin API set a part explicitly.
   */
  health(): AgentHealth {
    const out: AgentHealth = {};
    if (this.isClient) {
      out.client = this.healthOverride.client ?? (this.servers.length === 0 ? { ok: false, message: 'no known servers' } : { ok: true, message: 'ok' });
    }
    if (this.isServer) {
      out.server = this.healthOverride.server ?? (this.raftState() === 'Candidate' ? { ok: false, message: 'no leader' } : { ok: true, message: 'ok' });
    }
    return out;
  }

  /** undefined removes the override, so the part follows the model again. */
  setHealth(kind: HealthKind, part: HealthPart | undefined): void {
    if (part) this.healthOverride[kind] = part;
    else delete this.healthOverride[kind];
  }

  healthOverrides(): AgentHealth {
    return { ...this.healthOverride };
  }
}
