import { RPC_PORT, SERF_PORT, hostIp, stableUuid } from './identity.js';

/** A gossip-pool member as the agent API renders it (field names are the wire names). */
export interface Member {
  Name: string;
  Addr: string;
  Port: number;
  Tags: Record<string, string> | null;
  Status: string;
  ProtocolMin: number;
  ProtocolMax: number;
  ProtocolCur: number;
  DelegateMin: number;
  DelegateMax: number;
  DelegateCur: number;
}

/** A server host that can appear in a pool. */
export interface ServerHost {
  node: string;
  ip: string;
  datacenter: string;
  version: string;
}

export interface PoolOptions {
  local: ServerHost;
  region: string;
  size: number;
  /** Other server agents of the scenario: they come first, so pools of one scenario agree. */
  peers: ServerHost[];
  /** Node names generated members must not take (all agents of the scenario). */
  reserved: ReadonlySet<string>;
  /** Host number (see hostIp) the first generated member would get. */
  firstGeneratedHost: number;
}

export interface MemberCounts {
  members: number;
  failed: number;
  left: number;
}

/** What a client-only agent reports as its member: Go's zero serf.Member. */
export const NO_MEMBER: Member = {
  Name: '',
  Addr: '',
  Port: 0,
  Tags: null,
  Status: 'none',
  ProtocolMin: 0,
  ProtocolMax: 0,
  ProtocolCur: 0,
  DelegateMin: 0,
  DelegateMax: 0,
  DelegateCur: 0,
};

/**
 * One server agent's view of the gossip pool. The rendered /agent/members body is cached and only
 * rebuilt after a change, so a pool of thousands answers in the time it takes to write the bytes.
 */
export class MemberPool {
  readonly local: Member;
  private readonly members: Member[] = [];
  private readonly byName = new Map<string, Member>();
  private readonly expect: string;
  private generated = 0;
  /** The member `churn` failed last (0: none yet). */
  private churned = 0;
  private body: Buffer | undefined;
  private tally: MemberCounts | undefined;
  /** serf's member Lamport time: every membership change ticks it. */
  private clock = 1;

  constructor(private readonly opts: PoolOptions) {
    this.expect = String(Math.min(Math.max(opts.size, 1), 3));
    this.local = this.add(opts.local, SERF_PORT);
    for (const peer of opts.peers) {
      if (this.members.length >= opts.size) break;
      this.add(peer, SERF_PORT);
    }
    this.resize(opts.size);
  }

  list(): readonly Member[] {
    return this.members;
  }

  /** Finds a member by its pool name (`server-2.global`) or by its bare node name. */
  find(name: string): Member | undefined {
    return this.byName.get(name) ?? this.byName.get(`${name}.${this.opts.region}`);
  }

  setStatus(name: string, status: string): Member | undefined {
    const m = this.find(name);
    if (m && m.Status !== status) {
      m.Status = status;
      this.changed();
    }
    return m;
  }

  /**
   * Moves one failed member along the pool (never the local one): the member this failed last time
   * is alive again and the next one fails. Each answer's pool then differs from the last ones, even
   * to two clients that poll in turn.
   */
  churn(): void {
    if (this.members.length < 2) return;
    const was = this.members[this.churned];
    if (was && this.churned > 0) was.Status = 'alive';
    this.churned = (this.churned % (this.members.length - 1)) + 1;
    const next = this.members[this.churned];
    if (next) next.Status = 'failed';
    this.changed();
  }

  /** Grows with generated alive members or shrinks from the end; the local member always stays. */
  resize(size: number): void {
    const target = Math.max(1, size);
    while (this.members.length > target) {
      const gone = this.members.pop();
      if (gone) this.byName.delete(gone.Name);
    }
    while (this.members.length < target) this.add(this.nextGenerated(), SERF_PORT);
    this.changed();
  }

  /** A join adds the address as an alive member, or revives the member already at that address. */
  join(ip: string, port: number): void {
    const known = this.members.find((m) => m.Addr === ip && m.Port === port);
    if (known) known.Status = 'alive';
    else this.add({ ...this.nextGenerated(), ip }, port);
    this.changed();
  }

  /** Only a failed member moves (to left); the real agent ignores force-leave of any other. */
  forceLeave(name: string): Member | undefined {
    const m = this.find(name);
    if (m?.Status === 'failed') this.setStatus(m.Name, 'left');
    return m;
  }

  counts(): MemberCounts {
    if (!this.tally) {
      const t = { members: this.members.length, failed: 0, left: 0 };
      for (const m of this.members) {
        if (m.Status === 'failed') t.failed += 1;
        else if (m.Status === 'left') t.left += 1;
      }
      this.tally = t;
    }
    return this.tally;
  }

  get memberTime(): number {
    return this.clock;
  }

  /** The members answer, encoded once until the pool changes: every poll is sent the same bytes. */
  membersBody(): Buffer {
    this.body ??= Buffer.from(
      JSON.stringify({
        ServerName: this.opts.local.node,
        ServerRegion: this.opts.region,
        ServerDC: this.opts.local.datacenter,
        Members: this.members,
      }),
    );
    return this.body;
  }

  private changed(): void {
    this.body = undefined;
    this.tally = undefined;
    this.clock += 1;
  }

  private nextGenerated(): ServerHost {
    let node: string;
    do {
      this.generated += 1;
      node = `server-${this.generated}`;
    } while (this.opts.reserved.has(node) || this.find(node));
    return {
      node,
      ip: hostIp(this.opts.firstGeneratedHost + this.generated),
      datacenter: this.opts.local.datacenter,
      version: this.opts.local.version,
    };
  }

  private add(host: ServerHost, port: number): Member {
    const m: Member = {
      Name: `${host.node}.${this.opts.region}`,
      Addr: host.ip,
      Port: port,
      Tags: {
        role: 'nomad',
        region: this.opts.region,
        dc: host.datacenter,
        build: host.version,
        port: String(RPC_PORT),
        expect: this.expect,
        ...(this.expect === '1' ? { bootstrap: '1' } : {}),
        id: stableUuid(`server:${host.node}`),
        rpc_addr: host.ip,
        raft_vsn: '3',
        vsn: '1',
        mvn: '1',
      },
      Status: 'alive',
      ProtocolMin: 1,
      ProtocolMax: 5,
      ProtocolCur: 2,
      DelegateMin: 2,
      DelegateMax: 5,
      DelegateCur: 4,
    };
    this.members.push(m);
    this.byName.set(m.Name, m);
    return m;
  }
}
