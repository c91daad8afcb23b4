import type { PeerCertificate, TLSSocket } from 'node:tls';
import { buildConnector } from 'undici';

/**
 * What one TLS handshake with an upstream showed: the earliest expiry in the certificate chain it
 * presented (like blackbox_exporter's probe_ssl_earliest_cert_expiry) and whether the chain verified
 * against the configured trust (CA and hostname), whatever `insecure_skip_verify` then does with it.
 */
export interface TlsObservation {
  /** Epoch seconds; undefined when the handshake showed no certificate (a resumed session). */
  readonly earliestNotAfter: number | undefined;
  readonly verified: boolean;
}

/** The earliest `valid_to` of a detailed peer certificate and its issuers (the root links to itself). */
export function earliestExpiry(cert: PeerCertificate | undefined): number | undefined {
  let earliest: number | undefined;
  const seen = new Set<string>();
  for (
    let c: PeerCertificate | undefined = cert;
    c && c.valid_to && !seen.has(c.fingerprint256);
    c = (c as { issuerCertificate?: PeerCertificate }).issuerCertificate
  ) {
    seen.add(c.fingerprint256);
    const t = Date.parse(c.valid_to) / 1000;
    if (Number.isFinite(t) && (earliest === undefined || t < earliest)) earliest = t;
  }
  return earliest;
}

export interface ObservingConnectorOptions {
  timeoutMs: number;
  ca?: Buffer | undefined;
  insecureSkipVerify: boolean;
}

/**
 * An undici connector that always completes the handshake (rejectUnauthorized: false) so the chain
 * can be read even when it does not verify, reports what it saw, and then refuses the connection
 * itself when verification is required and failed, with the code Node gives (CERT_HAS_EXPIRED, ...).
 */
export function observingConnector(opts: ObservingConnectorOptions, onTls: (o: TlsObservation) => void): buildConnector.connector {
  const base = buildConnector({ timeout: opts.timeoutMs, ...(opts.ca ? { ca: opts.ca } : {}), rejectUnauthorized: false });
  return (connectOpts, callback) =>
    base(connectOpts, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('no socket'), null);
      const tls = socket as TLSSocket;
      if (typeof tls.getPeerCertificate !== 'function') return callback(null, socket);
      onTls({ earliestNotAfter: earliestExpiry(tls.getPeerCertificate(true)), verified: tls.authorized });
      if (tls.authorized || opts.insecureSkipVerify) return callback(null, socket);
      const code = String(tls.authorizationError ?? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      socket.destroy();
      callback(Object.assign(new Error(`certificate verification failed: ${code}`), { code }), null);
    });
}
