import type { TlsObservation } from '../upstream/tls-observer.js';
import { family, single, type Family } from '../metrics/family.js';

/** What the last TLS handshake with each HTTPS upstream target showed; absent for http targets. */
export const tlsFamilies: readonly Family<TlsObservation>[] = [
  family<TlsObservation>({
    name: 'vigil_upstream_tls_earliest_cert_expiry_timestamp_seconds',
    help: 'Earliest expiry (notAfter) of the certificate chain the HTTPS upstream target presented in its last TLS handshake, as Unix time (like probe_ssl_earliest_cert_expiry).',
    type: 'gauge',
    section: 'vigil',
    labels: ['target'],
    samples: single((o) => o.earliestNotAfter),
  }),
  family<TlsObservation>({
    name: 'vigil_upstream_tls_verified',
    help: "1 when the chain of the last TLS handshake verified against the target's trust (tls.ca_file or system roots, and the hostname), else 0; also reported with insecure_skip_verify, which then connects anyway.",
    type: 'gauge',
    section: 'vigil',
    labels: ['target'],
    samples: single((o) => o.verified),
  }),
];
