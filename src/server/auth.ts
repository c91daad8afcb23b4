import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthThrottle } from './auth-throttle.js';
import type { Comparer } from './bcrypt-thread.js';

/**
 * HTTP basic auth against a web config's bcrypt hashes.
 *
 * A bcrypt round costs ~80 ms of CPU: a scraper that sends the same credentials every 15 s must not
 * pay it each time, so a successful verification is remembered (as exporter-toolkit does) as a
 * SHA-256 digest of user, hash and password, compared in constant time; nothing in plain text is
 * kept, and kept across reloads for the users whose hash did not change. Rounds run in a thread of
 * their own (`BcryptThread`), one at a time, a bounded few waiting in lanes by what the client's
 * address showed lately, and a client whose passwords keep failing waits without a round
 * (`AuthThrottle`), so a flood of wrong passwords is refused, competes with itself for rounds and
 * never holds the event loop that answers `/metrics`.
 */

/** bcrypt of a password nobody knows: an unknown user costs the same round as a known one (no user enumeration by timing). */
const DECOY_HASH = '$2b$10$woGv5R.TyqVoDUfi.daPhem83P7XWjaLXl8JmGmWBPfN9FKSIADn.';

export type BasicAuthOutcome = 'ok' | 'missing' | 'wrong' | 'busy' | 'throttled';

export interface BasicAuthOptions {
  /** Runs a bcrypt comparison (in the bcrypt thread). */
  compare: Comparer;
  /** Kept across reloads, so a reload does not give a guesser a fresh start. */
  throttle?: AuthThrottle;
  /** The verifier this one replaces (a reload): what it verified for users whose hash is unchanged is kept. */
  previous?: BasicAuth;
}

const digest = (user: string, hash: string, password: string) =>
  createHash('sha256').update(user).update('\0').update(hash).update('\0').update(password).digest();

/** `Authorization: Basic …` → user and password, or undefined when it is not basic auth. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return undefined;
  return { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

export class BasicAuth {
  /** Per user, the digest of the last credentials that verified. */
  private readonly verified = new Map<string, Buffer>();
  private readonly compare: Comparer;
  private readonly throttle: AuthThrottle;

  constructor(
    private readonly users: ReadonlyMap<string, string>,
    opts: BasicAuthOptions,
  ) {
    this.compare = opts.compare;
    this.throttle = opts.throttle ?? new AuthThrottle();
    for (const [user, known] of opts.previous?.verified ?? []) {
      if (users.get(user) === opts.previous?.users.get(user)) this.verified.set(user, known);
    }
  }

  get enabled(): boolean {
    return this.users.size > 0;
  }

  /**
   * Answers from the cache when it can (synchronously, the common case of a scrape), else
   * undefined: call `verify` then.
   */
  cached(header: string | undefined): BasicAuthOutcome | undefined {
    const c = basicCredentials(header);
    if (!c) return header ? 'wrong' : 'missing';
    const hash = this.users.get(c.user);
    const known = hash === undefined ? undefined : this.verified.get(c.user);
    if (hash === undefined || known === undefined) return undefined;
    return timingSafeEqual(known, digest(c.user, hash, c.password)) ? 'ok' : undefined;
  }

  /**
   * Checks credentials from `client` (its address) with a bcrypt round and remembers a success;
   * a client whose rounds keep failing is answered `throttled` without one (`retryAfter` says how long).
   */
  async verify(header: string | undefined, client: string): Promise<BasicAuthOutcome> {
    const fast = this.cached(header);
    if (fast !== undefined) return fast;
    const c = basicCredentials(header)!;
    if (this.throttle.retryAfter(client) > 0) return 'throttled';
    const hash = this.users.get(c.user);
    const lane = this.throttle.lane(client);
    const done = this.throttle.begin(client);
    const outcome = await this.compare(c.password, hash ?? DECOY_HASH, lane).catch(() => false);
    const ok = outcome === true && hash !== undefined;
    done(outcome === 'busy' ? undefined : ok);
    if (outcome === 'busy') return 'busy';
    if (!ok) return 'wrong';
    this.verified.set(c.user, digest(c.user, hash, c.password));
    return 'ok';
  }

  /** Seconds a throttled client waits before its next check (at least 1). */
  retryAfter(client: string): number {
    return Math.max(1, this.throttle.retryAfter(client));
  }
}
