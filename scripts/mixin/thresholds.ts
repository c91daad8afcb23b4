import { withNumber } from './promql.js';

/**
 * The numbers of the shipped rules a user may set: each is one number of one alert's expression in
 * alerts/src, written there with its shipped value, which the mixin replaces on the syntax tree.
 */
export interface Threshold {
  alert: string;
  shipped: number;
  /** What it means, for docs and the jsonnet package's _config. */
  help: string;
}

export const THRESHOLDS = {
  secretsRaftFailureToleranceExpected: {
    alert: 'SecretsRaftFailureToleranceLow',
    shipped: 1,
    help: 'the raft failure tolerance a secrets cluster keeps at least (a cluster whose voters give more is held to what they give)',
  },
  secretsLeadershipChangesPerHour: {
    alert: 'SecretsLeadershipChurn',
    shipped: 3,
    help: 'changes of a secrets cluster’s active node within an hour above which SecretsLeadershipChurn warns',
  },
  secretsLicenseWarningDays: { alert: 'SecretsLicenseExpiringSoon', shipped: 30, help: 'days before a licence expires when SecretsLicenseExpiringSoon warns' },
  secretsLicenseCriticalDays: {
    alert: 'SecretsLicenseExpiryCritical',
    shipped: 7,
    help: 'days before a licence expires when SecretsLicenseExpiryCritical pages',
  },
  schedulerLicenseWarningDays: {
    alert: 'SchedulerLicenseExpiringSoon',
    shipped: 30,
    help: 'days before the Enterprise licence of a scheduler region expires when SchedulerLicenseExpiringSoon warns',
  },
  schedulerLicenseCriticalDays: {
    alert: 'SchedulerLicenseExpiryCritical',
    shipped: 7,
    help: 'days before the Enterprise licence of a scheduler region expires when SchedulerLicenseExpiryCritical pages',
  },
  secretsSnapshotStaleHours: {
    alert: 'SecretsSnapshotStale',
    shipped: 25,
    help: 'hours since an automated snapshot last succeeded after which SecretsSnapshotStale warns (fit it to the longest snapshot interval, plus grace)',
  },
  secretsSnapshotFailingErrors: {
    alert: 'SecretsSnapshotFailing',
    shipped: 3,
    help: 'attempts of an automated snapshot failed in a row at which SecretsSnapshotFailing pages',
  },
  schedulerJobFailingAllocations: {
    alert: 'SchedulerJobFailing',
    shipped: 3,
    help: 'failed or lost allocations of a service job within the failure window (workload.failure_window of the vigil config) above which SchedulerJobFailing pages',
  },
} as const satisfies Record<string, Threshold>;

export type ThresholdName = keyof typeof THRESHOLDS;

export const THRESHOLD_NAMES = Object.keys(THRESHOLDS) as ThresholdName[];

export const isThresholdName = (name: string): name is ThresholdName => Object.hasOwn(THRESHOLDS, name);

/** An alert's expression with the thresholds `values` sets (the others keep their shipped value). */
export function withThresholds(alert: string, expr: string, values: Partial<Record<ThresholdName, number>>): string {
  let out = expr;
  for (const name of THRESHOLD_NAMES) {
    const t: Threshold = THRESHOLDS[name];
    if (t.alert !== alert) continue;
    out = withNumber(out, t.shipped, values[name] ?? t.shipped, `${alert} (thresholds.${name})`);
  }
  return out;
}
