import type { MixinConfig } from '../../scripts/mixin/config.js';
import type { VigilDashboard } from './common.js';
import { agentsDashboard } from './agents.js';
import { secretsDashboard } from './secrets.js';
import { teamsDashboard } from './teams.js';
import { vigilDashboard } from './vigil.js';

/** Every shipped dashboard, by the file name it is written to in dashboards/. */
export function allDashboards(config?: MixinConfig): Record<string, VigilDashboard> {
  return {
    'secrets-replication.json': secretsDashboard(config),
    'scheduler-agents.json': agentsDashboard(config),
    'teams.json': teamsDashboard(config),
    'vigil.json': vigilDashboard(config),
  };
}

export function renderDashboard(d: VigilDashboard): string {
  return `${JSON.stringify(d.build(), null, 2)}\n`;
}
