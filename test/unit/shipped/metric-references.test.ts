import { describe, expect, it } from 'vitest';
import { mixinDashboards } from '../../../scripts/mixin/dashboards.js';
import { CATALOG } from '../../../src/catalog.js';
import { createProcessMetrics } from '../../../src/metrics/process-metrics.js';
import { parseExposition } from '../../helpers/exposition.js';
import { familyOf, metricNames, substituteGrafanaVariables } from '../../helpers/promql.js';
import { alertRules } from '../../helpers/rules.js';

/**
 * The catalog is the single source of truth: every metric an alert rule or a dashboard query uses
 * must be one vigil exports, so a renamed metric cannot silently break an alert or a panel.
 */
const histograms = new Set(CATALOG.filter((f) => f.type === 'histogram').map((f) => f.name));
const exported = new Set(CATALOG.map((f) => f.name));
// Metrics from outside the catalog that queries may use: Prometheus' own per-target series and
// the Node.js runtime metrics vigil serves through prom-client.
const runtime = new Set([...parseExposition(await createProcessMetrics()()).keys()].map((k) => k.replace(/\{.*$/, '')));
const PROMETHEUS_OWN = new Set(['up', 'scrape_samples_scraped', 'ALERTS']);

function unknownMetrics(expr: string): string[] {
  return metricNames(expr).filter((n) => !exported.has(familyOf(n, histograms)) && !runtime.has(n) && !PROMETHEUS_OWN.has(n));
}

describe('metrics referenced by alert rules', () => {
  it.each(alertRules().map((r) => [r.alert, r.expr] as const))('%s uses only exported metrics', (_a, expr) => {
    expect(unknownMetrics(expr)).toEqual([]);
  });
});

describe('metrics referenced by dashboards', () => {
  const queries = Object.entries(mixinDashboards()).flatMap(([file, d]) =>
    d.panels.flatMap((p) => p.queries.map((q) => [`${file}: ${p.title}`, substituteGrafanaVariables(q.expr)] as const)),
  );
  it.each(queries)('%s uses only exported metrics', (_p, expr) => {
    expect(unknownMetrics(expr)).toEqual([]);
  });
});

describe('the check itself', () => {
  it('finds a metric that does not exist, and reads histogram series', () => {
    expect(unknownMetrics('rate(secrets_replication_nonexistent[5m]) > 0')).toEqual(['secrets_replication_nonexistent']);
    expect(unknownMetrics('histogram_quantile(0.9, rate(vigil_upstream_request_duration_seconds_bucket[5m]))')).toEqual([]);
  });
});
