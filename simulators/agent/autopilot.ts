import { RPC_PORT, goDuration, stableUuid } from './identity.js';
import type { Member } from './members.js';

/** Autopilot's defaults: a server is unhealthy past this contact age or this many log entries behind. */
const LAST_CONTACT_THRESHOLD_MS = 200;
const MAX_TRAILING_LOGS = 250;
/** Regions run 3, 5 or 7 voting servers: the first ones of a pool (a pool sized for load tests holds thousands). */
const MAX_RAFT_SERVERS = 7;
/** Raft's index advances one entry per 100 ms, as the agents' raft stats do. */
const INDEX_PER_MS = 1 / 100;

interface RaftServer {
  name: string;
  id: string;
  address: string;
  version: string;
  /** When a fault killed it (its contact ages from then), or undefined. */
  killedAt?: number;
  /** Log entries it trails the leader by. */
  lag: number;
}

/**
 * The raft servers of one region as its leader's autopilot reports them (`/v1/operator/autopilot/health`),
 * shared by every agent of the region, so each answers the same. Faults: kill a server (its gossip status
 * fails and its contact ages; a killed leader hands over to the next live server), lag a voter (its index
 * trails the leader's), flap the leader (leadership moves to the next live server every period).
 */
export class RegionAutopilot {
  private readonly servers: RaftServer[];
  private readonly startedAt = Date.now();
  private leader = 0;
  private flapEveryMs: number | undefined;
  private flapFrom = 0;

  constructor(members: readonly Member[]) {
    this.servers = members.slice(0, MAX_RAFT_SERVERS).map((m) => ({
      name: m.Name,
      id: stableUuid(`raft:${m.Name}`),
      address: `${m.Addr}:${RPC_PORT}`,
      version: m.Tags?.build ?? '',
      lag: 0,
    }));
  }

  get names(): readonly string[] {
    return this.servers.map((s) => s.name);
  }

  /** Sets a server's faults; false when no server has that name. */
  setServer(name: string, change: { killed?: boolean; lag?: number }, now = Date.now()): boolean {
    const s = this.servers.find((x) => x.name === name);
    if (!s) return false;
    if (change.killed !== undefined) s.killedAt = change.killed ? (s.killedAt ?? now) : undefined;
    if (change.lag !== undefined) s.lag = change.lag;
    if (s.killedAt !== undefined && this.servers[this.leader] === s) this.leader = this.nextLive(this.leader);
    return true;
  }

  /** Moves leadership to the next live server every `everyMs` (undefined stops it where it is). */
  flap(everyMs: number | undefined, now = Date.now()): void {
    if (everyMs === undefined) this.leader = this.leaderAt(now);
    this.flapEveryMs = everyMs;
    this.flapFrom = now;
  }

  reset(): void {
    for (const s of this.servers) Object.assign(s, { killedAt: undefined, lag: 0 });
    this.flapEveryMs = undefined;
    this.leader = 0;
  }

  private nextLive(from: number): number {
    for (let k = 1; k <= this.servers.length; k++) {
      const i = (from + k) % this.servers.length;
      if (this.servers[i]?.killedAt === undefined) return i;
    }
    return from;
  }

  private leaderAt(now: number): number {
    if (this.flapEveryMs === undefined) return this.leader;
    let i = this.leader;
    for (let turns = Math.floor((now - this.flapFrom) / this.flapEveryMs) % this.servers.length; turns > 0; turns--) i = this.nextLive(i);
    return i;
  }

  /** The answer as the release of `withTopLevel` sends it: `Leader` and `Voters` at the top came with 1.x. */
  body(withTopLevel: boolean, now = Date.now()): { healthy: boolean; body: Record<string, unknown> } {
    const leader = this.leaderAt(now);
    const head = Math.floor((now - this.startedAt) * INDEX_PER_MS) + 100;
    const servers = this.servers.map((s, i) => {
      const isLeader = i === leader && s.killedAt === undefined;
      const contactMs = s.killedAt !== undefined ? now - s.killedAt : isLeader ? 0 : 5 + (i % 7);
      const lastIndex = s.killedAt !== undefined ? head - Math.floor((now - s.killedAt) * INDEX_PER_MS) - s.lag : head - s.lag;
      const healthy = s.killedAt === undefined && contactMs <= LAST_CONTACT_THRESHOLD_MS && head - lastIndex <= MAX_TRAILING_LOGS;
      return {
        ID: s.id,
        Name: s.name,
        Address: s.address,
        SerfStatus: s.killedAt === undefined ? 'alive' : 'failed',
        Version: s.version,
        Leader: isLeader,
        LastContact: goDuration(contactMs),
        LastTerm: 2,
        LastIndex: lastIndex,
        Healthy: healthy,
        Voter: true,
        StableSince: new Date(s.killedAt ?? this.startedAt).toISOString(),
      };
    });
    const healthyVoters = servers.filter((s) => s.Healthy).length;
    const quorum = Math.floor(servers.length / 2) + 1;
    const healthy = servers.every((s) => s.Healthy);
    const top = withTopLevel ? { Leader: servers.find((s) => s.Leader)?.ID ?? '', Voters: servers.map((s) => s.ID) } : {};
    return { healthy, body: { Healthy: healthy, FailureTolerance: Math.max(0, healthyVoters - quorum), ...top, Servers: servers } };
  }
}
