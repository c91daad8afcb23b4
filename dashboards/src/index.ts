import type { DashboardSettings, VigilDashboard } from './common.js';
import { agentsDashboard } from './agents.js';
import { secretsDashboard } from './secrets.js';
import { teamsDashboard } from './teams.js';
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

export function renderDashboard(d: VigilDashboard): string {
  return `${JSON.stringify(d.build(), null, 2)}\n`;
}
