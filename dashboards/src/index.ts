import type { DashboardSettings, VigilDashboard } from './common.js';
import { agentsDashboard } from './agents.js';
import { secretsDashboard } from './secrets.js';
import { teamsDashboard } from './teams.js';
import { upstreamTelemetryDashboard } from './upstream-telemetry.js';
import { vigilDashboard } from './vigil.js';

/** Every shipped dashboard, by the file name it is written to in dashboards/. */
export function allDashboards(settings: DashboardSettings): Record<string, VigilDashboard> {
  return {
    'secrets-replication.json': secretsDashboard(settings),
    'scheduler-agents.json': agentsDashboard(settings),
    'teams.json': teamsDashboard(settings),
    'vigil.json': vigilDashboard(settings),
  };
}

/** The optional dashboards on the upstreams' own telemetry, by the file name they are written to in dashboards/telemetry/. */
export function telemetryDashboards(settings: DashboardSettings): Record<string, VigilDashboard> {
  return { 'upstream-telemetry.json': upstreamTelemetryDashboard(settings) };
}

export function renderDashboard(d: VigilDashboard): string {
  return `${JSON.stringify(d.build(), null, 2)}\n`;
}
