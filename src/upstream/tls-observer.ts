import type { PeerCertificate, TLSSocket } from 'node:tls';

/**
 * What one TLS handshake with an upstream showed: the earliest expiry in the certificate chain it
 * presented (like blackbox_exporter's probe_ssl_earliest_cert_expiry) and whether the chain verified
 * against the configured trust (CA and hostname), whatever `insecure_skip_verify` then does with it.
 */
export interface TlsObservation {
  /** Epoch seconds; undefined when the handshake showed no certificate (a resumed session). */
  readonly earliestNotAfter: number | undefined;
  readonly verified: boolean;
  /**
   * The leaf certificate's identity: the first 16 hex digits of its SHA-256 fingerprint, one value
   * per certificate an address serves (bounded), shared by every address that serves the same one.
   */
  readonly certificate?: string | undefined;
}

/** The label that names a leaf certificate: its SHA-256 fingerprint's first 16 hex digits, lower case. */
export function certificateId(cert: PeerCertificate | undefined): string | undefined {
  const hex = cert?.fingerprint256?.replace(/:/g, '').toLowerCase();
  return hex ? hex.slice(0, 16) : undefined;
}

/** A handshake's observation, with what the last full handshake showed where a resumed session shows no certificate. */
export function carryCertificate(o: TlsObservation, last: TlsObservation | undefined): TlsObservation {
  return { ...o, earliestNotAfter: o.earliestNotAfter ?? last?.earliestNotAfter, certificate: o.certificate ?? last?.certificate };
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

/**
 * What a connection that completed its handshake without verifying (rejectUnauthorized: false, so
 * the chain can be read even when it does not verify) may go on to: reports what it saw, and
 * returns the error to refuse it with when verification is required and failed, with the code
 * Node gives (CERT_HAS_EXPIRED, ...).
 */
export function checkHandshake(socket: TLSSocket, insecureSkipVerify: boolean, onTls?: (o: TlsObservation) => void): Error | undefined {
  if (onTls) {
    const cert = socket.getPeerCertificate(true);
    onTls({ earliestNotAfter: earliestExpiry(cert), verified: socket.authorized, certificate: certificateId(cert) });
  }
  if (socket.authorized || insecureSkipVerify) return undefined;
  const code = String(socket.authorizationError ?? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  return Object.assign(new Error(`certificate verification failed: ${code}`), { code });
}
