import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ALERTS_DIR } from './rules.js';

/**
 * The shipped promtool tests, replayed as if several vigils (the same job, two instances) exposed
 * the same targets: what an HA pair, or a Prometheus scraping two vigils, sees. A rule that joins
 * or compares series wrongly then fails to evaluate ("found duplicate series for the match group")
 * and its expected alerts go missing, or it pages once per replica where it should page once.
 */

export const REPLICAS = ['vigil-a:9810', 'vigil-b:9810'] as const;

/**
 * Alerts that aggregate the vigils away: one alert per target (or region, kind, organization)
 * whichever vigils poll it. Every other alert keeps its vigil's `job` and `instance`, and
 * Alertmanager's `group_by: [alertname, target]` puts the replicas' copies into one notification.
 */
export const ONE_ALERT_ACROSS_REPLICAS = new Set([
  'SecretsServiceDown',
  'SchedulerAgentDown',
  'TeamsServiceDown',
  'SecretsMerkleTreeCorrupted',
  'SecretsReplicationNoPrimary',
  // Per node, server or cluster of a secrets target: what each node answered, whichever vigil asked.
  'SecretsNodeSealed',
  'SecretsNodeUnreachable',
  'SecretsNoActiveNode',
  'SecretsRequestsBlocked',
  'SecretsRaftFailureToleranceLost',
  'SecretsRaftFailureToleranceLow',
  'SecretsRaftServerUnhealthy',
  'SecretsLeadershipChurn',
  'SecretsNodeVersionSkew',
  'SecretsSealBackendUnhealthy',
  'SecretsSealBackendsUnhealthy',
  'SecretsLicenseExpiringSoon',
  'SecretsLicenseExpiryCritical',
  'SecretsLicenseExpired',
  // Per cluster and automated snapshot configuration: the freshest success, the most errors any vigil saw.
  'SecretsSnapshotStale',
  'SecretsSnapshotFailing',
  'SchedulerAgentNoRaftLeader',
  'SchedulerNodePoolDown',
  // Per region, namespace and job (or namespace): every agent and vigil listing the region's workload reports the same.
  'SchedulerJobFailing',
  'SchedulerJobNoRunningAllocations',
  'SchedulerJobAllocationsQueued',
  'SchedulerDeploymentBelowDesired',
  'SchedulerDeploymentFailed',
  'SchedulerEvaluationsBlocked',
  'SchedulerNodeClassDown',
  'SchedulerNodeDownLong',
  'SchedulerNodeDrainStuck',
  'SchedulerAgentAutopilotNoFailureTolerance',
  'SchedulerAgentAutopilotToleranceBelowExpected',
  'SchedulerAgentAutopilotServerUnhealthy',
  'SchedulerAgentLeaderFlapping',
  'SchedulerVersionSkew',
  // Per region: the earliest licence expiry of its servers, whichever agents and vigils report it.
  'SchedulerLicenseExpiringSoon',
  'SchedulerLicenseExpiryCritical',
  'SchedulerLicenseExpired',
  'TeamsCountDropped',
  'TeamsOwnersDropped',
  'VigilSecretsTokenExpiresSoon',
  'VigilSecretsTokenExpired',
  'VigilSchedulerTokenExpiresSoon',
  'VigilSchedulerTokenExpired',
  'Watchdog',
  'VigilAbsent',
  // One per certificate of a target, whichever vigils see it and at however many addresses.
  'VigilUpstreamCertificateExpiresSoon',
  'VigilUpstreamCertificateExpiresImminently',
  // One per proxy, whichever vigils and targets go through it.
  'VigilUpstreamProxyDown',
  // Their tests name each replica already: one alert per shard, whichever replicas count it.
  'VigilShardMissing',
  'VigilShardPolledTwice',
  'VigilTotalShardsDisagree',
]);

interface ExpAlert {
  exp_labels?: Record<string, string>;
  exp_annotations?: Record<string, string>;
}
interface RuleTestCase {
  eval_time: string;
  alertname: string;
  exp_alerts?: ExpAlert[];
}
interface RuleTest {
  name?: string;
  interval?: string;
  input_series?: Array<{ series: string; values: string }>;
  alert_rule_test?: RuleTestCase[];
  promql_expr_test?: unknown[];
}
interface RuleTestFile {
  rule_files: string[];
  evaluation_interval?: string;
  tests: RuleTest[];
}

/** Adds `job` and `instance` to a series selector written as promtool reads it (`name{a="b"}` or `name`). */
export function withReplica(series: string, instance: string): string {
  const extra = `job="vigil",instance="${instance}"`;
  const open = series.indexOf('{');
  if (open < 0) return `${series}{${extra}}`;
  const inner = series.slice(open + 1, series.lastIndexOf('}')).trim();
  return `${series.slice(0, open)}{${extra}${inner ? `,${inner}` : ''}}`;
}

/** A series that already names its vigil (`instance`), or is Prometheus' own `up`, stays as it is. */
const namesItsVigil = (series: string) => /\binstance=/.test(series) || /^up\b/.test(series);

/** The first sample of a promtool values string (`1x4` → `1`, `0+1x40` → `0`, `_x5` → `_`). */
export function firstSample(values: string): string {
  const token = values.trim().split(/\s+/)[0] ?? '_';
  return /^_/.test(token) ? '_' : token.replace(/x\d+$/, '').replace(/^(-?[\d.e+]+)[+-][\d.e]+$/, '$1');
}

export type ReplicaMode = 'both' | 'second-stops';

/**
 * One test file rewritten for two replicas. `both`: every series exposed by both vigils; the
 * per-replica alerts expected once per vigil. `second-stops`: the second vigil answers its first
 * scrape and is gone after it (killed, or its shard moved): nothing may page because of that, and
 * the per-replica alerts are expected from the first vigil only.
 */
export function replicatedTestFile(file: string, mode: ReplicaMode): string {
  const doc = parse(readFileSync(new URL(`tests/${file}`, ALERTS_DIR), 'utf8')) as RuleTestFile;
  const rulesDir = fileURLToPath(ALERTS_DIR);
  doc.rule_files = doc.rule_files.map((f) => `${rulesDir}tests/${f}`);
  for (const t of doc.tests) {
    t.input_series = (t.input_series ?? []).flatMap((s) => {
      if (namesItsVigil(s.series)) return [s];
      const second = mode === 'both' ? s.values : `${firstSample(s.values)} stale`;
      return [
        { series: withReplica(s.series, REPLICAS[0]), values: s.values },
        { series: withReplica(s.series, REPLICAS[1]), values: second },
      ];
    });
    // Expressions tested for their value are not alerts: they are checked by the shipped file alone.
    delete t.promql_expr_test;
    for (const c of t.alert_rule_test ?? []) {
      if (ONE_ALERT_ACROSS_REPLICAS.has(c.alertname)) continue;
      const vigils = mode === 'both' ? REPLICAS : REPLICAS.slice(0, 1);
      c.exp_alerts = (c.exp_alerts ?? []).flatMap((a) =>
        a.exp_labels && 'instance' in a.exp_labels ? [a] : vigils.map((instance) => ({ ...a, exp_labels: { ...a.exp_labels, job: 'vigil', instance } })),
      );
    }
  }
  return JSON.stringify(doc);
}
