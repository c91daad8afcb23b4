import { X509Certificate } from 'node:crypto';
import { HTTP_REFUSALS, httpFamilies, type HttpRefusal } from '../metrics/http-families.js';
import { renderGroup } from '../metrics/render.js';
import type { SnapshotStore } from '../metrics/snapshot-store.js';

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
