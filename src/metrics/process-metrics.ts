import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The Node.js runtime's own metrics (process_*, nodejs_*) from prom-client's default collectors.
 * They change every instant, so unlike vigil's snapshot they are rendered when scraped, at most once
 * a second (the server shares one rendering between the scrapes of that second); they are few.
 */
export function createProcessMetrics(): () => Promise<string> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  // Gauges named like counters, which `promtool check metrics` rejects; the same values are exported
  // without the suffix (nodejs_active_handles, nodejs_active_requests, nodejs_active_resources).
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  return () => registry.metrics();
}
