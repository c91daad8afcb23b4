import { createHash, timingSafeEqual } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { MAX_SECRET_FILE_BYTES, fileProblem, readBoundedFile } from '../config-fields/bounded-file.js';
import type { AlertSinkConfig } from '../config-fields/alert-sink.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Equal-length digests compared in constant time: neither length nor content of the secret leaks. */
const sameDigest = (a: Buffer, b: Buffer) => timingSafeEqual(a, b);

/** The secrets files are unreadable or empty: the sink cannot decide, and answers 500. */
export class SecretFileError extends Error {}

/** How long a secret read from its file is trusted before the file is read again. */
const SECRET_REREAD_MS = 1000;

/**
 * The digest of a secret kept in a file (trimmed, as Alertmanager trims its credentials files),
 * re-read at once when the file visibly changes, and at least every SECRET_REREAD_MS anyway: a
 * rotation that kept the size and mtime applies within a second too. Concurrent requests share a read.
 */
class SecretFile {
  private cached?: { at: number; version: string; digest: Promise<Buffer> };
  constructor(
    private readonly path: string,
    /** Digests `prefix + secret` (the `user:` of basic auth). */
    private readonly prefix = '',
  ) {}

  async digest(): Promise<Buffer> {
    const now = performance.now();
    let version: string;
    try {
      const st = await stat(this.path);
      version = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch (e) {
      throw new SecretFileError(`cannot read ${this.path} (${fileProblem(e)})`);
    }
    if (this.cached?.version === version && now - this.cached.at < SECRET_REREAD_MS) return this.cached.digest;
    const digest = this.read();
    this.cached = { at: now, version, digest };
    // A failed read is not remembered: the next request tries again.
    digest.catch(() => {
      if (this.cached?.digest === digest) this.cached = undefined;
    });
    return digest;
  }

  private async read(): Promise<Buffer> {
    let secret: string;
    try {
      secret = (await readBoundedFile(this.path, MAX_SECRET_FILE_BYTES)).toString('utf8').trim();
    } catch (e) {
      throw new SecretFileError(`cannot read ${this.path} (${fileProblem(e)})`);
    }
    if (!secret) throw new SecretFileError(`${this.path} is empty`);
    return sha256(this.prefix + secret);
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

  /**
   * The read API takes the read token, or the webhook's own credentials. A browser cannot send a
   * bearer token, so the read token is also taken as the password of HTTP basic auth (any user
   * name): the status pages' history then opens with the browser's own login prompt.
   */
  async checkRead(header: string | undefined): Promise<AuthOutcome> {
    if (!this.readProtected) return 'ok';
    if (this.reader) {
      const token = readTokenIn(header ?? '');
      if (token !== undefined && sameDigest(sha256(token), await this.reader.digest())) return 'ok';
    }
    if (!this.ownCredentials) return header ? 'wrong' : 'missing';
    return this.check(header);
  }

  /** For WWW-Authenticate on a 401. */
  challenges(): string[] {
    return [...(this.bearer || this.reader ? ['Bearer realm="vigil"'] : []), ...(this.basic ? ['Basic realm="vigil", charset="UTF-8"'] : [])];
  }

  /** For WWW-Authenticate on a 401 of the read API: with a read token, browsers are offered basic auth. */
  readChallenges(): string[] {
    const own = this.challenges();
    return this.reader && !this.basic ? [...own, 'Basic realm="vigil alert history", charset="UTF-8"'] : own;
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

/** The read token a request presents: as a bearer token, or as the password of basic auth. */
function readTokenIn(header: string): string | undefined {
  const m = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(header);
  if (!m) return undefined;
  if ((m[1] as string).toLowerCase() === 'bearer') return m[2] as string;
  const decoded = Buffer.from(m[2] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}
