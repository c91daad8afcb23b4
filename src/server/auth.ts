import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';

/**
 * HTTP basic auth against a web config's bcrypt hashes.
 *
 * A bcrypt round costs ~80 ms of CPU: a scraper that sends the same credentials every 15 s must not
 * pay it each time, so a successful verification is remembered (as exporter-toolkit does) as a
 * SHA-256 digest of user, hash and password, compared in constant time; nothing in plain text is
 * kept. Rounds run one at a time and only a few may wait, so a flood of wrong passwords gets 429s
 * instead of starving the event loop and `/metrics`.
 */

/** bcrypt of a password nobody knows: an unknown user costs the same round as a known one (no user enumeration by timing). */
const DECOY_HASH = '$2b$10$woGv5R.TyqVoDUfi.daPhem83P7XWjaLXl8JmGmWBPfN9FKSIADn.';

/** Bcrypt rounds that may queue behind the running one before new ones are turned away. */
export const MAX_WAITING_ROUNDS = 8;

export type BasicAuthOutcome = 'ok' | 'missing' | 'wrong' | 'busy';

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
  private queue: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(private readonly users: ReadonlyMap<string, string>) {}

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

  /** Checks credentials with a bcrypt round (serialized, bounded queue) and remembers a success. */
  async verify(header: string | undefined): Promise<BasicAuthOutcome> {
    const fast = this.cached(header);
    if (fast !== undefined) return fast;
    const c = basicCredentials(header)!;
    if (this.waiting >= MAX_WAITING_ROUNDS) return 'busy';
    this.waiting++;
    const hash = this.users.get(c.user);
    const round = this.queue.then(() => bcrypt.compare(c.password, hash ?? DECOY_HASH));
    this.queue = round.catch(() => false);
    let ok: boolean;
    try {
      ok = (await round) && hash !== undefined;
    } catch {
      ok = false;
    } finally {
      this.waiting--;
    }
    if (!ok) return 'wrong';
    this.verified.set(c.user, digest(c.user, hash!, c.password));
    return 'ok';
  }
}
