import type { Job } from '../collectors/collection.js';
import type { WalLagTracker } from '../collectors/secrets-wal-lag.js';
import type { Config } from '../config/schema.js';
import type { BuildContext } from './context.js';
import { agentJobs } from './agents.js';
import { withReplicationSets } from './replication-sets.js';
import { secretsJobs } from './secrets.js';
import { teamsJobs } from './teams.js';

/** Every scheduled job of one config: one per target × collector. */
export function buildJobs(config: Config, ctx: BuildContext, walLag: WalLagTracker): Job[] {
  return [
    ...withReplicationSets(config.secrets.flatMap((t) => secretsJobs(t, ctx, walLag)), config.secrets, ctx, walLag),
    ...config.agents.flatMap((t) => agentJobs(t, ctx)),
    ...config.teams.flatMap((t) => teamsJobs(t, ctx)),
  ];
}

/** Each target name → its config entries (of any kind) as text: a reload tells a changed target by it. */
export function targetConfigs(config: Config): Map<string, string> {
  const byName = new Map<string, unknown[]>();
  for (const [kind, list] of [['secrets', config.secrets], ['agents', config.agents], ['teams', config.teams]] as const) {
    for (const t of list) byName.set(t.name, [...(byName.get(t.name) ?? []), kind, t]);
  }
  return new Map([...byName].map(([name, entries]) => [name, JSON.stringify(entries)]));
}
