/** The shipped rules' defaults, which the status page marks snapshots by: 3 attempts failed in a row page (SecretsSnapshotFailing); no success for 25 hours warns (SecretsSnapshotStale). */
export const SNAPSHOT_FAILING_ERRORS = 3;
export const SNAPSHOT_STALE_SECONDS = 25 * 3600;
