import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { AlertSinkConfig } from '../config/schema.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Equal-length digests compared in constant time: neither length nor content of the secret leaks. */
const sameDigest = (a: Buffer, b: Buffer) => timingSafeEqual(a, b);

/** The secrets files are unreadable or empty: the sink cannot decide, and answers 500. */
export class SecretFileError extends Error {}

/**
 * The digest of a secret kept in a file (trimmed, as Alertmanager trims its credentials files),
 * re-read when the file changes, so a rotated secret applies without a reload.
 */
class SecretFile {
  private cached?: { version: string; digest: Buffer };
  constructor(
    private readonly path: string,
    /** Digests `prefix + secret` (the `user:` of basic auth). */
    private readonly prefix = '',
  ) {}

  async digest(): Promise<Buffer> {
    try {
      const st = await stat(this.path);
      const version = `${st.ino}:${st.size}:${st.mtimeMs}`;
      if (this.cached?.version === version) return this.cached.digest;
      const secret = (await readFile(this.path, 'utf8')).trim();
      if (!secret) throw new SecretFileError(`${this.path} is empty`);
      this.cached = { version, digest: sha256(this.prefix + secret) };
      return this.cached.digest;
    } catch (e) {
      if (e instanceof SecretFileError) throw e;
      throw new SecretFileError(`cannot read ${this.path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
}

export type AuthOutcome = 'ok' | 'missing' | 'wrong';

/**
 * Checks the Authorization header against the configured bearer token and/or basic auth; with both
 * configured either one is accepted. With neither, every request is accepted.
 */
export class SinkAuth {
  private readonly bearer?: SecretFile;
  private readonly basic?: SecretFile;
  private readonly reader?: SecretFile;

  constructor(cfg: Pick<AlertSinkConfig, 'bearer_token_file' | 'basic_auth' | 'read_token_file'>) {
    if (cfg.bearer_token_file) this.bearer = new SecretFile(cfg.bearer_token_file);
    if (cfg.basic_auth) this.basic = new SecretFile(cfg.basic_auth.password_file, `${cfg.basic_auth.username}:`);
    if (cfg.read_token_file) this.reader = new SecretFile(cfg.read_token_file);
  }

  /** Whether the webhook has credentials of its own (then web-config basic auth leaves it to them). */
  get ownCredentials(): boolean {
    return this.bearer !== undefined || this.basic !== undefined;
  }

  /** Whether the read API needs credentials: when any are configured for the sink. */
  get readProtected(): boolean {
    return this.ownCredentials || this.reader !== undefined;
  }

  /** The read API takes the read token, or the webhook's own credentials. */
  async checkRead(header: string | undefined): Promise<AuthOutcome> {
    if (!this.readProtected) return 'ok';
    if (this.reader) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
      if (m && sameDigest(sha256(m[1] as string), await this.reader.digest())) return 'ok';
    }
    if (!this.ownCredentials) return header ? 'wrong' : 'missing';
    return this.check(header);
  }

  /** For WWW-Authenticate on a 401. */
  challenges(): string[] {
    return [...(this.bearer || this.reader ? ['Bearer realm="vigil"'] : []), ...(this.basic ? ['Basic realm="vigil", charset="UTF-8"'] : [])];
  }

  async check(header: string | undefined): Promise<AuthOutcome> {
    if (!this.bearer && !this.basic) return 'ok';
    const m = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(header ?? '');
    if (!m) return header ? 'wrong' : 'missing';
    const scheme = (m[1] as string).toLowerCase();
    const file = scheme === 'bearer' ? this.bearer : this.basic;
    if (!file) return 'wrong';
    const presented = scheme === 'bearer' ? (m[2] as string) : Buffer.from(m[2] as string, 'base64').toString('utf8');
    return sameDigest(sha256(presented), await file.digest()) ? 'ok' : 'wrong';
  }
}
