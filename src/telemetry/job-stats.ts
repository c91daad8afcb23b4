import { REASONS, type Reason } from '../upstream/errors.js';
import { family, single, type Family } from '../metrics/family.js';

/** vigil's own view of its jobs' runs: what the vigil_collector_* families render. */

export interface JobStats {
  readonly collector: string;
  readonly target: string;
  intervalSeconds: number;
  runs: number;
  skipped: number;
  failures: Map<Reason, number>;
  /** The reasons of the last run's failed parts; empty while the last run succeeded. */
  failing: Set<Reason>;
  /** The proxies (by origin) the last run's failed parts failed at (reason `proxy`); empty otherwise. */
  failingProxies: Set<string>;
  up?: boolean;
  lastDurationSeconds?: number;
  lastRunSeconds?: number;
  lastSuccessSeconds?: number;
  lastError?: { reason: Reason; message: string; part: string };
}

export function newJobStats(collector: string, target: string, intervalSeconds: number): JobStats {
  return {
    collector,
    target,
    intervalSeconds,
    runs: 0,
    skipped: 0,
    failures: new Map(REASONS.map((r) => [r, 0])),
    failing: new Set(),
    failingProxies: new Set(),
  };
}

const JOB = ['collector', 'target'] as const;

export const jobFamilies: readonly Family<JobStats>[] = [
  family<JobStats>({
    name: 'vigil_collector_up',
    help: "1 when the last run of this collector for this target succeeded in every part, else 0; a node of a cluster that does not answer is the node's failure (secrets_node_up), not the collector's.",
    type: 'gauge',
    section: 'vigil',
    labels: [...JOB],
    samples: single((s) => s.up),
  }),
  family<JobStats>({
    name: 'vigil_collector_duration_seconds',
    help: 'Wall time of the last run of this collector for this target.',
    type: 'gauge',
    section: 'vigil',
    labels: [...JOB],
    samples: single((s) => s.lastDurationSeconds),
  }),
  family<JobStats>({
    name: 'vigil_collector_last_run_timestamp_seconds',
    help: 'When the last run of this collector for this target finished, as Unix time.',
    type: 'gauge',
    section: 'vigil',
    labels: [...JOB],
    samples: single((s) => s.lastRunSeconds),
  }),
  family<JobStats>({
    name: 'vigil_collector_last_success_timestamp_seconds',
    help: 'When this collector last succeeded for this target, as Unix time; absent before the first success.',
    type: 'gauge',
    section: 'vigil',
    labels: [...JOB],
    samples: single((s) => s.lastSuccessSeconds),
  }),
  family<JobStats>({
    name: 'vigil_collector_schedule_interval_seconds',
    help: 'Seconds between two scheduled runs of this collector for this target (from its cron schedule).',
    type: 'gauge',
    section: 'vigil',
    labels: [...JOB],
    samples: single((s) => s.intervalSeconds),
  }),
  family<JobStats>({
    name: 'vigil_collector_runs_total',
    help: 'Runs of this collector for this target.',
    type: 'counter',
    section: 'vigil',
    labels: [...JOB],
    samples: single((s) => s.runs),
  }),
  family<JobStats>({
    name: 'vigil_collector_failures_total',
    help: 'Failed parts of runs of this collector for this target, by reason.',
    type: 'counter',
    section: 'vigil',
    labels: [...JOB, 'reason'],
    samples: (s) => [...s.failures].map(([reason, value]) => ({ labels: { reason }, value })),
  }),
  family<JobStats>({
    name: 'vigil_collector_failing',
    help: "1 for each reason a part of this collector's last run for this target failed with; absent while the last run succeeded. What the upstream-down alerts read.",
    type: 'gauge',
    section: 'vigil',
    labels: [...JOB, 'reason'],
    samples: (s) => [...s.failing].map((reason) => ({ labels: { reason }, value: 1 })),
  }),
  family<JobStats>({
    name: 'vigil_collector_proxy_failing',
    help: "1 for the proxy (its origin: scheme, host and port, never credentials) a part of this collector's last run for this target failed at with reason proxy; absent otherwise. One proxy per target: VigilUpstreamProxyDown counts them per proxy, and the upstream-down pages hold back for them.",
    type: 'gauge',
    section: 'vigil',
    labels: [...JOB, 'proxy'],
    samples: (s) => [...s.failingProxies].map((proxy) => ({ labels: { proxy }, value: 1 })),
  }),
  family<JobStats>({
    name: 'vigil_collector_skipped_runs_total',
    help: 'Scheduled runs skipped because the previous run of the same job was still going.',
    type: 'counter',
    section: 'vigil',
    labels: [...JOB],
    samples: single((s) => s.skipped),
  }),
];
