import type { Config } from '../config/schema.js';
import type { BuildContext } from '../jobs/context.js';
import type { Job } from '../jobs/part.js';
import type { AnyFamily } from '../metrics/family.js';
import { jobFamilies, upstreamFamilies } from '../metrics/telemetry.js';
import { tlsFamilies } from '../metrics/tls-families.js';
import { agentArea } from './agent/collector.js';
import type { Area, AreaState } from './collector.js';
import { secretsArea } from './secrets/collector.js';
import { teamsArea } from './teams/collector.js';

/** The upstreams vigil polls, in exposition order. */
export const AREAS: readonly Area[] = [secretsArea, agentArea, teamsArea] as readonly Area[];

/** The families the collection renders, wherever it runs: every area's, then the jobs' and clients' own. The head of the body. */
export const COLLECTION_FAMILIES: readonly AnyFamily[] = [
  ...AREAS.flatMap((a) => a.families),
  ...jobFamilies,
  ...upstreamFamilies,
  ...tlsFamilies,
] as readonly AnyFamily[];

/** Every scheduled job of one config: one per target × collector. */
export function buildJobs(config: Config, ctx: BuildContext, state: AreaState): Job[] {
  return AREAS.flatMap((a) => a.jobs(config[a.kind] as never, ctx, state));
}

/** Each target name → its config entries (of any kind) as text: a reload tells a changed target by it. */
export function targetConfigs(config: Config): Map<string, string> {
  const byName = new Map<string, unknown[]>();
  for (const { kind } of AREAS) {
    for (const t of config[kind]) byName.set(t.name, [...(byName.get(t.name) ?? []), kind, t]);
  }
  return new Map([...byName].map(([name, entries]) => [name, JSON.stringify(entries)]));
}
