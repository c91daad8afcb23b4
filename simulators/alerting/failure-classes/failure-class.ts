/**
 * Every failure vigil can see, and the alert that tells of it: the rows of docs/paging.md. The
 * alert's severity, `for:`, routes and inhibitions are read from the shipped files when the doc is
 * generated; `proof` says which test holds the row true: `live` rows are produced in
 * test/e2e/paging.test.ts by a simulator fault, through a real Prometheus and Alertmanager running
 * the shipped files with two vigils (or, as the note says, in a file of its own beside it); `promtool` rows by the unit tests of alerts/tests/ (a clock
 * a live run cannot wait for, or a condition no simulator makes).
 */
export interface FailureClass {
  /** Stable id, used by the live test to find its fault. */
  readonly id: string;
  readonly area: 'Secrets service' | 'Cluster agents' | 'Team management' | 'vigil and the alert path';
  readonly failure: string;
  /** The alert that tells of it; for a control, the alert it must not raise. */
  readonly alert: string;
  /**
   * A control, not a failure: an estate that is right though it could be taken for `alert`'s
   * condition. It must page nobody: the live test fails on any page its faults did not cause.
   */
  readonly control?: true;
  readonly proof: 'live' | 'promtool';
  /**
   * Told by an optional rule of alerts/telemetry/, on the upstream's own telemetry: it pages only
   * where Prometheus scrapes that telemetry and loads those rules (docs/upstream-telemetry.md).
   */
  readonly optional?: true;
  /** How it is told apart from its neighbours, when it matters. */
  readonly note?: string;
}
