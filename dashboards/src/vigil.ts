import { dashboard, type DashboardSettings } from './common.js';

const T = 'target=~"$target"';

export function vigilDashboard(settings: DashboardSettings) {
  return dashboard(
    'vigil',
    "vigil's own health: collections, upstream requests, the alert sink and the Watchdog, and the process.",
    'vigil_collector_up',
    settings,
  )
    .row('Collections')
    .stat({
      title: 'Collectors up',
      description: 'Share of collector × target jobs whose last run succeeded.',
      unit: 'percentunit',
      queries: [{ expr: `avg(vigil_collector_up{${T}})` }],
    })
    .stat({
      title: 'Watchdog',
      description: '1 while the Watchdog alert keeps reaching the alert sink.',
      unit: 'bool',
      queries: [{ expr: 'vigil_alertsink_watchdog_healthy' }],
    })
    .stat({
      title: 'Config reload',
      description: '1 when the last configuration (re)load succeeded.',
      unit: 'bool',
      queries: [{ expr: 'vigil_config_last_reload_successful' }],
    })
    .stat({
      title: 'Exposed series',
      description: 'Series vigil serves on /metrics.',
      unit: 'short',
      queries: [{ expr: 'scrape_samples_scraped{job=~"vigil.*"}' }],
    })
    .timeseries({
      title: 'Collector success',
      description: 'vigil_collector_up per job: 1 when every part of its last run succeeded.',
      unit: 'bool',
      queries: [{ expr: `vigil_collector_up{${T}}`, legend: '{{collector}} {{target}}' }],
    })
    .timeseries({
      title: 'Collection duration',
      description: 'Wall time of the last run of each job.',
      unit: 's',
      queries: [{ expr: `vigil_collector_duration_seconds{${T}}`, legend: '{{collector}} {{target}}' }],
    })
    .timeseries({
      title: 'Failures by reason',
      description: 'Failed collection parts per second, by reason.',
      unit: 'ops',
      mayBeEmpty: true,
      queries: [
        {
          expr: `sum by (collector, target, reason) (rate(vigil_collector_failures_total{${T}}[$__rate_interval])) > 0`,
          legend: '{{collector}} {{target}} {{reason}}',
        },
      ],
    })
    .timeseries({
      title: 'Time since last success',
      description: 'Seconds since each job last succeeded; VigilCollectionStale fires beyond three schedule intervals.',
      unit: 's',
      queries: [{ expr: `time() - vigil_collector_last_success_timestamp_seconds{${T}}`, legend: '{{collector}} {{target}}' }],
    })
    .row('Upstream requests')
    .timeseries({
      title: 'Upstream latency p99',
      description: '99th percentile of request duration per target and endpoint.',
      unit: 's',
      queries: [
        {
          expr: `histogram_quantile(0.99, sum by (le, target, endpoint) (rate(vigil_upstream_request_duration_seconds_bucket{${T}}[$__rate_interval])))`,
          legend: '{{target}} {{endpoint}}',
        },
      ],
    })
    .timeseries({
      title: 'Upstream requests by code',
      description: "Requests per second by HTTP status ('none' when no answer arrived).",
      unit: 'reqps',
      queries: [{ expr: `sum by (target, code) (rate(vigil_upstream_request_duration_seconds_count{${T}}[$__rate_interval]))`, legend: '{{target}} {{code}}' }],
    })
    .timeseries({
      title: 'Retries and 429s',
      description: 'Retried requests (412 backoff, 429 waits) and rate-limited answers per second.',
      unit: 'reqps',
      mayBeEmpty: true,
      queries: [
        { expr: `sum by (target) (rate(vigil_upstream_retries_total{${T}}[$__rate_interval]))`, legend: '{{target}} retries' },
        { expr: `sum by (target) (rate(vigil_upstream_rate_limited_total{${T}}[$__rate_interval]))`, legend: '{{target}} 429' },
      ],
    })
    .timeseries({
      title: 'Skipped runs',
      description: 'Scheduled runs skipped because the previous one was still going.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [{ expr: `increase(vigil_collector_skipped_runs_total{${T}}[$__rate_interval]) > 0`, legend: '{{collector}} {{target}}' }],
    })
    .row('Upstream certificates')
    .table({
      title: 'Days until an upstream certificate expires',
      description:
        "Earliest expiry in the chain each HTTPS upstream presented, in days, at its configured address (`(configured)`) and at each secrets node's own address, with the leaf certificate's fingerprint (`certificate`, the same wherever one certificate is served); VigilUpstreamCertificateExpiresSoon warns below 14, VigilUpstreamCertificateExpiresImminently pages below 2, once per certificate. Empty when no target uses https.",
      unit: 'd',
      mayBeEmpty: true,
      queries: [
        {
          expr: `((label_replace(vigil_upstream_tls_earliest_cert_expiry_timestamp_seconds{${T}}, "address", "(configured)", "", "") or vigil_upstream_node_tls_earliest_cert_expiry_timestamp_seconds{${T}}) - time()) / 86400`,
        },
      ],
    })
    .timeseries({
      title: 'Upstream certificate verified',
      description:
        "1 when the upstream's chain verified against the target's trust (CA file or system roots, and hostname), at its configured address and at each secrets node's own; 0 with insecure_skip_verify on a certificate that would not verify.",
      unit: 'bool',
      mayBeEmpty: true,
      queries: [
        { expr: `vigil_upstream_tls_verified{${T}}`, legend: '{{target}}' },
        { expr: `vigil_upstream_node_tls_verified{${T}}`, legend: '{{target}} {{address}}' },
      ],
    })
    .row('Alert sink')
    .timeseries({
      title: 'Notifications',
      description: 'Notifications stored per second by receiver and status, and duplicates recognised.',
      unit: 'ops',
      queries: [
        { expr: 'sum by (receiver, status) (rate(vigil_alertsink_notifications_total[$__rate_interval]))', legend: '{{receiver}} {{status}}' },
        { expr: 'sum by (receiver) (rate(vigil_alertsink_duplicates_total[$__rate_interval]))', legend: '{{receiver}} duplicates' },
      ],
    })
    .timeseries({
      title: 'Rejected webhooks',
      description: 'Webhook requests rejected per second, by reason.',
      unit: 'reqps',
      mayBeEmpty: true,
      queries: [{ expr: 'sum by (reason) (rate(vigil_alertsink_rejected_total[$__rate_interval])) > 0', legend: '{{reason}}' }],
    })
    .timeseries({
      title: 'Current alerts',
      description: 'Alerts the sink knows by state and severity.',
      unit: 'short',
      queries: [{ expr: 'vigil_alertsink_alerts', legend: '{{state}} {{severity}}' }],
    })
    .timeseries({
      title: 'Watchdog age',
      description: 'Seconds since the Watchdog alert last arrived; VigilWatchdogMissing fires past the max silence.',
      unit: 's',
      queries: [{ expr: 'time() - vigil_alertsink_watchdog_last_seen_timestamp_seconds' }],
    })
    .row('Process')
    .timeseries({
      title: 'Memory',
      description: 'Resident memory and V8 heap of the vigil process.',
      unit: 'bytes',
      queries: [
        { expr: 'process_resident_memory_bytes{job=~"vigil.*"}', legend: 'resident' },
        { expr: 'nodejs_heap_size_used_bytes{job=~"vigil.*"}', legend: 'heap used' },
      ],
    })
    .timeseries({
      title: 'CPU and event loop',
      description: 'CPU seconds per second, and the p99 event-loop delay (a slow loop delays scrapes).',
      unit: 's',
      queries: [
        { expr: 'rate(process_cpu_seconds_total{job=~"vigil.*"}[$__rate_interval])', legend: 'cpu' },
        { expr: 'nodejs_eventloop_lag_p99_seconds{job=~"vigil.*"}', legend: 'event loop p99' },
      ],
    });
}
