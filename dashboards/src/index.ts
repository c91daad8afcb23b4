import type { VigilDashboard } from './common.js';
import { schedulerDashboard } from './scheduler.js';
import { secretsDashboard } from './secrets.js';
import { teamsDashboard } from './teams.js';
import { vigilDashboard } from './vigil.js';

/** Every shipped dashboard, by the file name it is written to in dashboards/. */
export function allDashboards(): Record<string, VigilDashboard> {
  return {
    'secrets-replication.json': secretsDashboard(),
    'scheduler-agents.json': schedulerDashboard(),
    'teams.json': teamsDashboard(),
    'vigil.json': vigilDashboard(),
  };
}

export function renderDashboard(d: VigilDashboard): string {
  return `${JSON.stringify(d.build(), null, 2)}\n`;
}
