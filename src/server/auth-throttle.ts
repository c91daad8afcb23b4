import type { Lane } from './check-queue.js';

/**
 * Failed basic-auth attempts throttled per client (`clientOf`: an address, an IPv6 /64): after a few
 * wrong passwords in a window, the client's next attempts are refused with Retry-After, without a bcrypt
 * round, for a back-off that doubles at each new block. Only attempts that cost a round count;
 * a success forgets the client's failures and trusts it for a while, and cached credentials never
 * reach the throttle. What it knows of a client also names the lane its next check waits in
 * (`CheckQueue`). Memory is bounded: at most `maxClients` failing and `maxTrusted` trusted clients
 * are tracked, the least recently failing (or passing) forgotten first.
 */

export interface ThrottleSettings {
  /** Failed (or pending) rounds within `windowMs` that block a client. */
  failures: number;
  windowMs: number;
  /** The first block; each next one doubles, up to `maxBackoffMs`. */
  firstBackoffMs: number;
  maxBackoffMs: number;
  /** A client without a failure for this long starts over (its back-off too). */
  forgetMs: number;
  maxClients: number;
  /** A client whose check passed is trusted this long (its checks wait in the first lane). */
  trustMs: number;
  maxTrusted: number;
}

export const AUTH_THROTTLE: ThrottleSettings = {
  failures: 5,
  windowMs: 60_000,
  firstBackoffMs: 1000,
  maxBackoffMs: 300_000,
  forgetMs: 900_000,
  maxClients: 10_000,
  trustMs: 86_400_000,
  maxTrusted: 1000,
};

interface Client {
  failures: number;
  /** When the window of `failures` began. */
  since: number;
  /** Rounds of this client running or waiting now. */
  inFlight: number;
  /** Blocked until then. */
  until: number;
  /** Blocks so far: the next back-off is `firstBackoffMs * 2^blocks`. */
  blocks: number;
  lastFailure: number;
}

export class AuthThrottle {
  private readonly clients = new Map<string, Client>();
  /** Client → when its last check passed. */
  private readonly trusted = new Map<string, number>();

  constructor(
    private readonly settings: ThrottleSettings = AUTH_THROTTLE,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Clients tracked now. */
  get size(): number {
    return this.clients.size;
  }

  /** Seconds `client` must wait before its next round, or 0 when it may have one now. */
  retryAfter(client: string): number {
    const c = this.current(client);
    if (!c) return 0;
    const t = this.now();
    if (t < c.until) return Math.ceil((c.until - t) / 1000);
    // Rounds already under way would reach the limit: wait for their answers.
    return c.failures + c.inFlight >= this.settings.failures ? 1 : 0;
  }

  /** The lane `client`'s next check waits in: `suspect` after a recent failure, `trusted` after a recent success, else `clean`. */
  lane(client: string): Lane {
    const c = this.current(client);
    if (c && (c.failures > 0 || c.blocks > 0)) return 'suspect';
    const passed = this.trusted.get(client);
    if (passed !== undefined && this.now() - passed <= this.settings.trustMs) return 'trusted';
    return 'clean';
  }

  /** A round for `client` begins; call what it returns with the round's answer (undefined: none was given). */
  begin(client: string): (ok: boolean | undefined) => void {
    const c = this.current(client) ?? this.track(client);
    c.inFlight++;
    return (ok) => {
      c.inFlight--;
      if (ok === true) this.passed(client);
      // The record may have been forgotten or evicted meanwhile: the failure counts in the current one.
      else if (ok === false) this.failed(client, this.clients.get(client) ?? this.track(client));
    };
  }

  private passed(client: string): void {
    this.clients.delete(client);
    this.trusted.delete(client);
    if (this.trusted.size >= this.settings.maxTrusted) this.trusted.delete(this.trusted.keys().next().value!);
    this.trusted.set(client, this.now());
  }

  private failed(client: string, c: Client): void {
    const t = this.now();
    if (t - c.since > this.settings.windowMs) {
      c.failures = 0;
      c.since = t;
    }
    c.failures++;
    c.lastFailure = t;
    if (c.failures >= this.settings.failures) {
      c.until = t + Math.min(this.settings.maxBackoffMs, this.settings.firstBackoffMs * 2 ** c.blocks);
      c.blocks++;
      c.failures = 0;
      c.since = t;
    }
    // Most recently failing last: eviction takes the first.
    this.clients.delete(client);
    this.clients.set(client, c);
  }

  /** The client's record, unless it is absent or was quiet long enough to start over. */
  private current(client: string): Client | undefined {
    const c = this.clients.get(client);
    if (!c) return undefined;
    const t = this.now();
    if (c.inFlight === 0 && t >= c.until && t - c.lastFailure > this.settings.forgetMs) {
      this.clients.delete(client);
      return undefined;
    }
    return c;
  }

  private track(client: string): Client {
    if (this.clients.size >= this.settings.maxClients) {
      const oldest = this.clients.keys().next().value;
      if (oldest !== undefined) this.clients.delete(oldest);
    }
    const t = this.now();
    const c: Client = { failures: 0, since: t, inFlight: 0, until: 0, blocks: 0, lastFailure: t };
    this.clients.set(client, c);
    return c;
  }
}
