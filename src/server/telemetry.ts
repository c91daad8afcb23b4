import { X509Certificate } from 'node:crypto';
import { family, single, type Family } from '../metrics/family.js';
import { renderGroup } from '../metrics/render.js';
import type { SnapshotStore } from '../metrics/snapshot-store.js';

/** Why the HTTP surface turned a client away before any route saw it: the `reason` label. */
export const HTTP_REFUSALS = ['unauthorized', 'auth_busy', 'rate_limited', 'tls_handshake', 'client_certificate', 'connection_evicted'] as const;
export type HttpRefusal = (typeof HTTP_REFUSALS)[number];

export interface HttpStats {
  refused: ReadonlyMap<HttpRefusal, number>;
  /** When the served certificate stops being valid (none without TLS). */
  certificateNotAfterSeconds?: number | undefined;
}

export const httpFamilies: readonly Family<HttpStats>[] = [
  family<HttpStats>({
    name: 'vigil_http_refused_total',
    help: 'Clients turned away by the HTTP surface, by reason: unauthorized (401: web-config basic auth), auth_busy (429: too many bcrypt checks at once), rate_limited (429: over the web config rate_limit), tls_handshake (failed handshake: wrong TLS version, no or untrusted client certificate), client_certificate (refused after the handshake: client_auth_type, client_allowed_sans), connection_evicted (an idle connection closed to stay under --web.max-connections). Resets when vigil restarts.',
    type: 'counter',
    area: 'vigil',
    labels: ['reason'],
    samples: (s) => [...s.refused].map(([reason, value]) => ({ labels: { reason }, value })),
  }),
  family<HttpStats>({
    name: 'vigil_http_tls_cert_expiry_timestamp_seconds',
    help: 'When the certificate vigil serves (tls_server_config.cert_file) expires; absent without TLS. Follows rotations.',
    type: 'gauge',
    area: 'vigil',
    labels: [],
    samples: single((s) => s.certificateNotAfterSeconds),
  }),
];

const GROUP = 'vigil/http';
/** Counts reach /metrics at most this often: a flood of refusals costs a counter increment each, not a render. */
const PUBLISH_EVERY_MS = 1000;

/** The HTTP surface's counters, rendered into the snapshot store at most once a second. */
export class HttpTelemetry {
  private readonly refused = new Map<HttpRefusal, number>(HTTP_REFUSALS.map((r) => [r, 0]));
  private notAfter?: number;
  private pending?: NodeJS.Timeout;

  constructor(private readonly store: SnapshotStore) {
    this.publish();
  }

  refuse(reason: HttpRefusal): void {
    this.refused.set(reason, (this.refused.get(reason) ?? 0) + 1);
    this.pending ??= setTimeout(() => this.publish(), PUBLISH_EVERY_MS).unref();
  }

  /** Takes the certificate now served (PEM), or none. */
  certificate(pem: string | undefined): void {
    try {
      this.notAfter = pem ? Date.parse(new X509Certificate(pem).validTo) / 1000 : undefined;
    } catch {
      this.notAfter = undefined;
    }
    this.publish();
  }

  publish(): void {
    clearTimeout(this.pending);
    this.pending = undefined;
    this.store.replace(GROUP, renderGroup(httpFamilies, { refused: this.refused, certificateNotAfterSeconds: this.notAfter }, {}));
  }
}
