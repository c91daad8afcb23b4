import { KeyPairError, readKeyPair, type KeyPair } from '../config-fields/key-pair.js';
import { filesVersion } from '../support/files-version.js';
import { UpstreamError } from './errors.js';

/** What happened to a client certificate's files, for the log. */
export type CertificateEvent = { kind: 'rotated' } | { kind: 'unusable'; problem: string };

/**
 * The client certificate an upstream target is polled with (`tls.cert_file`, `tls.key_file`):
 * re-read when either file changes (checked at each new connection, as cheaply as a stat), so a
 * renewed pair is used without a reload. A pair that does not load together (one file written,
 * the other not yet) leaves the previous one in use until it does.
 */
export class ClientCertificate {
  private pair: KeyPair | undefined;
  private version = '';
  private refused = '';

  constructor(
    private readonly certFile: string,
    private readonly keyFile: string,
    private readonly onEvent: (e: CertificateEvent) => void = () => undefined,
  ) {}

  /** The pair to present now; throws an UpstreamError (reason `config`) only when no pair was ever usable. */
  async current(): Promise<KeyPair> {
    const version = await filesVersion([this.certFile, this.keyFile]);
    if (this.pair && (version === this.version || version === this.refused)) return this.pair;
    try {
      const next = await readKeyPair(this.certFile, this.keyFile);
      if (this.pair) this.onEvent({ kind: 'rotated' });
      this.pair = next;
      this.version = version;
    } catch (e) {
      if (!(e instanceof KeyPairError)) throw e;
      const problem = `tls.${e.key}: ${e.message}`;
      if (!this.pair) throw new UpstreamError('config', problem);
      if (this.refused !== version) this.onEvent({ kind: 'unusable', problem });
      this.refused = version;
    }
    return this.pair;
  }
}
