import type { BuildContext } from '../jobs/context.js';
import type { Job } from '../jobs/part.js';
import { jobFamilies } from '../telemetry/job-stats.js';
import { upstreamFamilies } from '../telemetry/upstream-stats.js';
import { tlsFamilies } from '../telemetry/tls-families.js';
import type { AnyFamily } from '../metrics/family.js';
import type { GroupWriter } from '../metrics/render.js';
import { agentCollector } from './agent/collector.js';
import type { AgentTarget } from './agent/target.js';
import type { Collector, TargetKind } from './collector.js';
import { secretsCollector } from './secrets/collector.js';
import type { SecretsTarget } from './secrets/target.js';
import { teamsCollector } from './teams/collector.js';
import type { TeamsTarget } from './teams/target.js';

/** Every configured target, by the config list that holds it. */
export interface Targets {
  secrets: SecretsTarget[];
  agents: AgentTarget[];
  teams: TeamsTarget[];
}

/** The upstreams vigil polls, in exposition order. */
export const COLLECTORS: readonly Collector[] = [secretsCollector, agentCollector, teamsCollector] as readonly Collector[];

/** Every endpoint of every collector, with the collector's config list. */
export const ENDPOINTS = COLLECTORS.flatMap((c) => c.endpoints.map((endpoint) => ({ kind: c.kind, endpoint })));

/** The families the collection renders, wherever it runs: every collector's, then the jobs' and clients' own. The head of the body. */
export const COLLECTION_FAMILIES: readonly AnyFamily[] = [
  ...COLLECTORS.flatMap((c) => c.families),
  ...jobFamilies,
  ...upstreamFamilies,
  ...tlsFamilies,
] as readonly AnyFamily[];

/** State each collector derives across its targets: made once, kept across reloads. */
export type CollectorStates = ReadonlyMap<TargetKind, unknown>;
export const collectorStates = (): CollectorStates => new Map(COLLECTORS.map((c) => [c.kind, c.state()]));

/** Every scheduled job of one config: one per target × collector job. */
export function buildJobs(targets: Targets, ctx: BuildContext, states: CollectorStates): Job[] {
  return COLLECTORS.flatMap((c) => c.jobs(targets[c.kind], ctx, states.get(c.kind)));
}

/** Once the previous config's jobs stopped: each collector's state forgets its removed targets. */
export function settleStates(targets: Targets, store: GroupWriter, states: CollectorStates): void {
  for (const c of COLLECTORS) c.settle?.(states.get(c.kind), targets[c.kind], { store });
}

/** Each target name → its config entries (of any kind) as text: a reload tells a changed target by it. */
export function targetConfigs(targets: Targets): Map<string, string> {
  const byName = new Map<string, unknown[]>();
  for (const { kind } of COLLECTORS) {
    for (const t of targets[kind]) byName.set(t.name, [...(byName.get(t.name) ?? []), kind, t]);
  }
  return new Map([...byName].map(([name, entries]) => [name, JSON.stringify(entries)]));
}
