import type { TlsObservation } from '../upstream/tls-observer.js';
import { family, type Family, type Sample } from '../metrics/family.js';

/** The samples of one address's observation: `value` of it, labelled by the certificate it presented. */
const observed = (o: TlsObservation, value: number | undefined, labels: Record<string, string> = {}): Sample[] =>
  value === undefined ? [] : [{ labels: { ...labels, certificate: o.certificate ?? '' }, value }];

const CERTIFICATE_HELP =
  ' `certificate` is the leaf certificate' + "'s SHA-256 fingerprint, its first 16 hex digits: the same value wherever the same certificate is served.";

/** What the last TLS handshake with each HTTPS upstream target showed; absent for http targets. */
export const tlsFamilies: readonly Family<TlsObservation>[] = [
  family<TlsObservation>({
    name: 'vigil_upstream_tls_earliest_cert_expiry_timestamp_seconds',
    help: `Earliest expiry (notAfter) of the certificate chain the HTTPS upstream target presented at its configured address in its last TLS handshake, as Unix time (like probe_ssl_earliest_cert_expiry).${CERTIFICATE_HELP}`,
    type: 'gauge',
    section: 'vigil',
    labels: ['target', 'certificate'],
    samples: (o) => observed(o, o.earliestNotAfter),
  }),
  family<TlsObservation>({
    name: 'vigil_upstream_tls_verified',
    help: `1 when the chain of the last TLS handshake verified against the target's trust (tls.ca_file or system roots, and the hostname), else 0; also reported with insecure_skip_verify, which then connects anyway.${CERTIFICATE_HELP}`,
    type: 'gauge',
    section: 'vigil',
    labels: ['target', 'certificate'],
    samples: (o) => observed(o, Number(o.verified)),
  }),
];

/** What the last TLS handshake at each node's own address showed, by address (a secrets cluster's nodes). */
export type NodeTlsObservations = ReadonlyMap<string, TlsObservation>;

/** Each node's certificate, polled at the node's own address with the target's TLS settings. */
export const nodeTlsFamilies: readonly Family<NodeTlsObservations>[] = [
  family<NodeTlsObservations>({
    name: 'vigil_upstream_node_tls_earliest_cert_expiry_timestamp_seconds',
    help: `Earliest expiry (notAfter) of the certificate chain a node of the HTTPS upstream target presented at its own address (\`address\`, as in secrets_node_up) in its last TLS handshake, as Unix time.${CERTIFICATE_HELP}`,
    type: 'gauge',
    section: 'vigil',
    labels: ['target', 'address', 'certificate'],
    samples: (m) => [...m].flatMap(([address, o]) => observed(o, o.earliestNotAfter, { address })),
  }),
  family<NodeTlsObservations>({
    name: 'vigil_upstream_node_tls_verified',
    help: `1 when the chain a node presented at its own address in its last TLS handshake verified against the target's trust, else 0.${CERTIFICATE_HELP}`,
    type: 'gauge',
    section: 'vigil',
    labels: ['target', 'address', 'certificate'],
    samples: (m) => [...m].flatMap(([address, o]) => observed(o, Number(o.verified), { address })),
  }),
];
