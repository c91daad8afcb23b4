import { family, single, type Family } from './family.js';

/** Why the HTTP surface turned a client away before any route saw it: the `reason` label. */
export const HTTP_REFUSALS = [
  'unauthorized',
  'auth_busy',
  'auth_throttled',
  'rate_limited',
  'tls_handshake',
  'client_certificate',
  'connection_evicted',
] as const;
export type HttpRefusal = (typeof HTTP_REFUSALS)[number];

export interface HttpStats {
  refused: ReadonlyMap<HttpRefusal, number>;
  /** bcrypt comparisons run for web-config basic auth. */
  bcryptRounds: number;
  /** Connections cut because their client stopped reading its answer. */
  writeStalled: number;
  /** When the served certificate stops being valid (none without TLS). */
  certificateNotAfterSeconds?: number | undefined;
}

export const httpFamilies: readonly Family<HttpStats>[] = [
  family<HttpStats>({
    name: 'vigil_http_refused_total',
    help: 'Clients turned away by the HTTP surface, by reason: unauthorized (401: web-config basic auth), auth_busy (429, 503 to a webhook: too many bcrypt checks waiting), auth_throttled (429, 503 to a webhook, without a bcrypt check: too many failed checks from the same address or IPv6 /64 lately), rate_limited (429, 503 to a webhook: over the web config rate_limit), tls_handshake (failed handshake: wrong TLS version, no or untrusted client certificate), client_certificate (refused after the handshake: client_auth_type, client_allowed_sans), connection_evicted (an idle connection closed to stay under --web.max-connections). Resets when vigil restarts.',
    type: 'counter',
    section: 'vigil',
    labels: ['reason'],
    samples: (s) => [...s.refused].map(([reason, value]) => ({ labels: { reason }, value })),
  }),
  family<HttpStats>({
    name: 'vigil_http_bcrypt_rounds_total',
    help: 'bcrypt comparisons run to check web-config basic auth passwords (verified credentials are remembered, so a steady scraper costs one). Resets when vigil restarts.',
    type: 'counter',
    section: 'vigil',
    labels: [],
    samples: single((s) => s.bcryptRounds),
  }),
  family<HttpStats>({
    name: 'vigil_http_write_stalled_total',
    help: 'Connections cut because their client stopped reading the answer: it took no byte of it for --web.write-timeout, or it had taken none for a second when a new connection came over --web.max-connections with no idle one to close. Resets when vigil restarts.',
    type: 'counter',
    section: 'vigil',
    labels: [],
    samples: single((s) => s.writeStalled),
  }),
  family<HttpStats>({
    name: 'vigil_http_tls_cert_expiry_timestamp_seconds',
    help: 'When the certificate vigil serves (tls_server_config.cert_file) expires; absent without TLS. Follows rotations.',
    type: 'gauge',
    section: 'vigil',
    labels: [],
    samples: single((s) => s.certificateNotAfterSeconds),
  }),
];
