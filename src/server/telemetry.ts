import { X509Certificate } from 'node:crypto';
import { HTTP_REFUSALS, httpFamilies, type HttpRefusal } from '../metrics/http-families.js';
import { renderGroup } from '../metrics/render.js';
import type { SnapshotStore } from '../metrics/snapshot-store.js';
import { ThrottledGroup } from '../metrics/throttled-group.js';

const GROUP = 'vigil/http';
/** Counts reach /metrics at most this often: a flood of refusals costs a counter increment each, not a render. */
export const PUBLISH_EVERY_MS = 1000;

/** The HTTP surface's counters, rendered into the snapshot store at most once a second. */
export class HttpTelemetry {
  private readonly refused = new Map<HttpRefusal, number>(HTTP_REFUSALS.map((r) => [r, 0]));
  private writeStalled = 0;
  private notAfter?: number;
  private bcryptRounds = 0;
  private readonly group: ThrottledGroup;

  constructor(store: SnapshotStore) {
    this.group = new ThrottledGroup(
      store,
      GROUP,
      () =>
        renderGroup(
          httpFamilies,
          { refused: this.refused, bcryptRounds: this.bcryptRounds, writeStalled: this.writeStalled, certificateNotAfterSeconds: this.notAfter },
          {},
        ),
      PUBLISH_EVERY_MS,
    );
    this.publish();
  }

  refuse(reason: HttpRefusal): void {
    this.refused.set(reason, (this.refused.get(reason) ?? 0) + 1);
    this.group.changed();
  }

  /** A bcrypt comparison ran. */
  round(): void {
    this.bcryptRounds++;
    this.group.changed();
  }

  /** A connection was cut because its client stopped reading its answer. */
  stalled(): void {
    this.writeStalled++;
    this.group.changed();
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
    void this.group.publish();
  }
}
