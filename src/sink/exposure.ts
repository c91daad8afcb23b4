import type { Logger } from 'pino';
import type { AlertSinkConfig } from '../config-fields/alert-sink.js';
import { renderGroup, type RenderedGroup } from '../metrics/render.js';
import type { SnapshotStore } from '../metrics/snapshot-store.js';
import { ThrottledGroup } from '../metrics/throttled-group.js';
import { REJECT_REASONS, sinkFamilies, type RejectReason } from './families.js';
import type { StoreAvailability } from './store/guarded-store.js';
import { boundSummary } from './label-bounds.js';
import type { AlertStore, StoreSummary } from './store/alert-store.js';
import { FOLD_FIELDS, type FoldCounts, type FoldField } from './value-folds.js';
import type { Watchdog } from './watchdog.js';

/**
 * The vigil_alertsink_* series are rendered at most this often: a flood of requests (refused ones
 * included) costs one store read and one render per interval, not one per request.
 */
export const METRICS_INTERVAL_MS = 1000;

/** The snapshot-store group of the vigil_alertsink_* series. */
export const SINK_GROUP = 'alertsink';

/** What the series show of a running sink. */
export interface ExposedSink {
  cfg: AlertSinkConfig;
  store: AlertStore;
  watchdog: Watchdog;
}

/** The vigil_alertsink_* series: what they count, and their render into the snapshot store. */
export class SinkExposure {
  private summary: StoreSummary = { receivers: [], alerts: [] };
  private summaryStale = false;
  private readonly rejected = new Map<RejectReason, number>(REJECT_REASONS.map((r) => [r, 0]));
  private readonly folds = new Map<FoldField, number>(FOLD_FIELDS.map((f) => [f, 0]));
  private readonly group: ThrottledGroup;

  constructor(
    metrics: SnapshotStore,
    private readonly log: Logger,
    /** The running sink, if any: read at each render. */
    private readonly sink: () => ExposedSink | undefined,
    private readonly availability: () => StoreAvailability,
  ) {
    this.group = new ThrottledGroup(metrics, SINK_GROUP, () => this.render(), METRICS_INTERVAL_MS);
  }

  /** Something the series show changed (the store's totals, if `totals`): rendered within the interval. */
  changed(totals: boolean): void {
    if (totals) this.summaryStale = true;
    this.group.changed();
  }

  /** Counts a refused webhook request. */
  refused(reason: RejectReason): void {
    this.rejected.set(reason, (this.rejected.get(reason) ?? 0) + 1);
    this.changed(false);
  }

  /** Counts the values a stored notification had folded. */
  folded(counts: FoldCounts): void {
    for (const [field, n] of Object.entries(counts) as Array<[FoldField, number]>) this.folds.set(field, (this.folds.get(field) ?? 0) + n);
    this.changed(false);
  }

  /** Re-reads the totals and renders now. */
  publish(): Promise<void> {
    this.summaryStale = true;
    return this.group.publish();
  }

  /** Drops a scheduled render and waits for a running one (before its store closes). */
  settle(): Promise<void> {
    return this.group.settle();
  }

  /** Renders a change still waiting for its interval now (tests read their changes at once). */
  flush(): Promise<void> {
    return this.group.flush();
  }

  /** The sink is off: its series go. */
  clear(): void {
    this.group.clear();
  }

  /** Re-reads the totals if they changed, and renders the series of the sink running now; never rejects. */
  private async render(): Promise<RenderedGroup | undefined> {
    const s = this.sink();
    if (!s) return undefined;
    if (this.summaryStale) {
      this.summaryStale = false;
      try {
        this.summary = await s.store.summary();
      } catch (e) {
        this.log.error({ err: (e as Error).message }, 'cannot read alert sink totals');
      }
    }
    if (this.sink() !== s) return undefined;
    const lastSeen = s.watchdog.lastSeenAt();
    const summary = boundSummary(this.summary, { maxValues: s.cfg.limits.max_label_values, maxLength: s.cfg.limits.max_label_length });
    const watchdog = { lastSeenSeconds: lastSeen === undefined ? undefined : lastSeen / 1000, healthy: s.watchdog.isHealthy() };
    return renderGroup(sinkFamilies, { summary, rejected: this.rejected, folded: this.folds, store: this.availability(), watchdog }, {});
  }
}
