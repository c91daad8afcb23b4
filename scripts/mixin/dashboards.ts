import type { DashboardSettings, VigilDashboard } from '../../dashboards/src/common.js';
import { allDashboards, telemetryDashboards } from '../../dashboards/src/index.js';
import { DEFAULT_MIXIN, type MixinConfig } from './config.js';
import { withMatchers } from './promql.js';

/** What the dashboards take of a mixin config: its labels, and the syntax-tree edit that fits every query to them. */
export function dashboardSettings(config: MixinConfig): DashboardSettings {
  return { selector: config.selector, clusterLabel: config.clusterLabel, fit: (expr, matchers) => withMatchers(expr, matchers) };
}

/** Every shipped dashboard fitted to `config`, by the file name it is written to in dashboards/. */
export function mixinDashboards(config: MixinConfig = DEFAULT_MIXIN): Record<string, VigilDashboard> {
  return allDashboards(dashboardSettings(config));
}

/** The optional dashboards on the upstreams' telemetry fitted to `config`, by file name in dashboards/telemetry/. */
export function mixinTelemetryDashboards(config: MixinConfig = DEFAULT_MIXIN): Record<string, VigilDashboard> {
  return telemetryDashboards(dashboardSettings(config));
}
