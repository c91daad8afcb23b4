import {
  DashboardBuilder,
  DashboardLinkBuilder,
  DashboardLinkType,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DASHBOARDS, DATASOURCE, TAG, VigilDashboard, type DashboardSettings } from './common.js';

const T = 'target=~"$target"';
const R = 'region=~"$region"';
const O = 'target=~"$organization"';
const mean = (m: string, sel: string) => `rate(${m}_sum{${sel}}[$__rate_interval]) / rate(${m}_count{${sel}}[$__rate_interval])`;

function variable(name: string, label: string, query: string) {
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .allValue('.*');
}

/**
 * The optional dashboard on the upstreams' own telemetry, which Prometheus scrapes beside vigil
 * (docs/upstream-telemetry.md): what the rules of alerts/telemetry/ read, by vigil's names for the
 * upstreams (the `target` and `region` labels of the scrape jobs). Its series are not vigil's, so
 * the mixin's selector and vigil's job variables do not apply; a cluster label does.
 */
export function upstreamTelemetryDashboard(settings: DashboardSettings): VigilDashboard {
  const d = DASHBOARDS.telemetry;
  const cluster = settings.clusterLabel;
  const inCluster = cluster === '' ? '' : `${cluster}=~"$cluster"`;
  const b = new DashboardBuilder(d.title)
    .uid(d.uid)
    .description("The upstreams' own telemetry, scraped by Prometheus beside vigil: what vigil cannot see from their APIs.")
    .tags([TAG])
    .editable()
    .refresh('30s')
    .time({ from: 'now-3h', to: 'now' })
    .timezone('browser')
    .withVariable(new DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'))
    .link(new DashboardLinkBuilder('vigil dashboards').type(DashboardLinkType.Dashboards).tags([TAG]).asDropdown(true).keepTime(true).includeVars(true));
  const values = (metric: string, label: string) => `label_values(${metric}${inCluster === '' ? '' : `{${inCluster}}`}, ${label})`;
  if (cluster !== '') b.withVariable(variable('cluster', 'Cluster', `label_values(vault_core_unsealed, ${cluster})`));
  b.withVariable(variable('target', 'Secrets cluster', values('vault_core_unsealed', 'target')));
  b.withVariable(variable('region', 'Scheduler region', values('nomad_nomad_heartbeat_active', 'region')));
  b.withVariable(variable('organization', 'Organization', values('tfc_terraform_agent_count', 'target')));
  const fit = (e: string) => (inCluster === '' ? e : settings.fit(e, inCluster));
  return new VigilDashboard(d.uid, b, fit)
    .row('Secrets service')
    .timeseries({
      title: 'Audit entries failed',
      description:
        'Requests and responses a node failed to write to an audit device, per second (vault_audit_log_*_failure); SecretsAuditLogFailing warns on any for 5m.',
      unit: 'reqps',
      mayBeEmpty: true,
      queries: [
        { expr: `sum by (target) (rate(vault_audit_log_request_failure{${T}}[$__rate_interval]))`, legend: '{{target}} requests' },
        { expr: `sum by (target) (rate(vault_audit_log_response_failure{${T}}[$__rate_interval]))`, legend: '{{target}} responses' },
      ],
    })
    .timeseries({
      title: 'Leases',
      description: 'Leases each cluster holds (vault_expire_num_leases), and those it could not revoke; SecretsLeaseCountHigh warns above 250,000.',
      unit: 'short',
      queries: [
        { expr: `max by (target) (vault_expire_num_leases{${T}})`, legend: '{{target}}' },
        { expr: `max by (target) (vault_expire_num_irrevocable_leases{${T}})`, legend: '{{target}} irrevocable' },
      ],
    })
    .timeseries({
      title: 'Tokens that never expire',
      description: 'Tokens created with no TTL (vault_token_count_by_ttl{creation_ttl="+Inf"}); SecretsNonExpiringTokens warns above 3.',
      unit: 'short',
      queries: [{ expr: `max by (target) (sum by (target, instance) (vault_token_count_by_ttl{creation_ttl="+Inf", ${T}}))`, legend: '{{target}}' }],
    })
    .timeseries({
      title: 'Server errors',
      description: 'Share of answers that were 5xx (vault_core_response_status_code); SecretsServerErrors warns above 5% and 1/s.',
      unit: 'percentunit',
      mayBeEmpty: true,
      queries: [
        {
          expr: `sum by (target) (rate(vault_core_response_status_code{type="5xx", ${T}}[$__rate_interval])) / sum by (target) (rate(vault_core_response_status_code{${T}}[$__rate_interval]))`,
          legend: '{{target}}',
        },
      ],
    })
    .timeseries({
      title: 'Request handling, 99th percentile',
      description: 'Slowest requests per node (vault_core_handle_request, ms); SecretsRequestLatencyHigh warns above 1 s.',
      unit: 'ms',
      queries: [{ expr: `max by (target, instance) (vault_core_handle_request{quantile="0.99", ${T}})`, legend: '{{target}} {{instance}}' }],
    })
    .timeseries({
      title: 'Raft entries waiting for the FSM',
      description: 'Per node (vault_raft_storage_stats_fsm_pending); SecretsRaftFSMBacklog warns above 100.',
      unit: 'short',
      queries: [{ expr: `max by (target, instance) (vault_raft_storage_stats_fsm_pending{${T}})`, legend: '{{target}} {{instance}}' }],
    })
    .timeseries({
      title: 'Replication WAL flush and persist',
      description:
        'Mean time to flush a ready WAL and to persist WALs (vault_wal_flushready, vault_wal_persistwals, ms); SecretsReplicationWALBackPressure warns above 500 and 1,000.',
      unit: 'ms',
      mayBeEmpty: true,
      queries: [
        { expr: `max by (target) (${mean('vault_wal_flushReady', T)} or ${mean('vault_wal_flushready', T)})`, legend: '{{target}} flush ready' },
        { expr: `max by (target) (${mean('vault_wal_persistWALs', T)} or ${mean('vault_wal_persistwals', T)})`, legend: '{{target}} persist' },
      ],
    })
    .table({
      title: 'Node health as vigil probes it',
      description:
        "Each node's sys/health status code, as vigil's recording rules present it to the vault-mixin (vault_health_status_code: 200 active, 429 standby, 472 DR secondary, 473 performance standby, 501 uninitialized, 503 sealed).",
      unit: 'none',
      mayBeEmpty: true,
      queries: [{ expr: `max by (target, node, instance) (vault_health_status_code{${T}})` }],
    })
    .row('Scheduler')
    .timeseries({
      title: 'Blocked evaluations',
      description: "The leader's blocked evaluations (nomad_nomad_blocked_evals_total_blocked); SchedulerBlockedEvaluations warns after 15m.",
      unit: 'short',
      queries: [{ expr: `max by (region) (nomad_nomad_blocked_evals_total_blocked{${R}})`, legend: '{{region}}' }],
    })
    .timeseries({
      title: 'Plan queue and wait for the raft index',
      description:
        "Plans waiting in the leader's queue (nomad_nomad_plan_queue_depth), and the mean wait for the state store (nomad_nomad_plan_wait_for_index, ms, right axis units as ms).",
      unit: 'short',
      queries: [
        { expr: `max by (region) (nomad_nomad_plan_queue_depth{${R}})`, legend: '{{region}} queued plans' },
        { expr: `max by (region) (${mean('nomad_nomad_plan_wait_for_index', R)})`, legend: '{{region}} wait for index (ms)' },
      ],
    })
    .timeseries({
      title: 'Client heartbeats',
      description:
        'Client nodes whose heartbeats the leader tracks (nomad_nomad_heartbeat_active); SchedulerHeartbeatsDropped warns on a 10% drop within an hour.',
      unit: 'short',
      queries: [{ expr: `max by (region) (nomad_nomad_heartbeat_active{${R}})`, legend: '{{region}}' }],
    })
    .stat({
      title: 'Licence, days left',
      description:
        "Days until the region's Enterprise licence expires, as its servers report it (nomad_license_expiration_time_epoch); empty for the community edition.",
      unit: 'd',
      mayBeEmpty: true,
      queries: [{ expr: `(min by (region) (nomad_license_expiration_time_epoch{${R}}) - time()) / 86400`, legend: '{{region}}' }],
    })
    .row('Team management')
    .timeseries({
      title: 'Agents by status',
      description:
        "Agents of each organization's pools by status (tfc_terraform_agent_count, the hosted service's metrics service); TeamsAgentsErrored warns on any errored agent for 5m.",
      unit: 'short',
      mayBeEmpty: true,
      queries: [{ expr: `max by (target, status) (sum by (target, instance, status) (tfc_terraform_agent_count{${O}}))`, legend: '{{target}} {{status}}' }],
    })
    .timeseries({
      title: 'Runs completed per hour, by status',
      description:
        'Runs each organization completed per hour, by how they ended (terraform_run_status_total); TeamsRunsErrored warns when more than half of at least 5 errored.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [
        {
          expr: `max by (target, run_status) (sum by (target, instance, run_status) (rate(terraform_run_status_total{${O}}[$__rate_interval]))) * 3600`,
          legend: '{{target}} {{run_status}}',
        },
      ],
    });
}
