import type { z } from 'zod';
import type { BuildContext } from '../jobs/context.js';
import type { Job } from '../jobs/part.js';
import type { AnyFamily } from '../metrics/family.js';
import type { GroupWriter } from '../metrics/render.js';
import { jobFamilies } from '../telemetry/job-stats.js';
import { nodeTlsFamilies, tlsFamilies } from '../telemetry/tls-families.js';
import { upstreamFamilies } from '../telemetry/upstream-stats.js';
import { agentCollector } from './agent/collector.js';
import type { Collector } from './collector.js';
import { secretsCollector } from './secrets/collector.js';
import { teamsCollector } from './teams/collector.js';

/** The upstreams vigil polls, in exposition order. */
export const COLLECTORS = [secretsCollector, agentCollector, teamsCollector] as const;

type Collectors = (typeof COLLECTORS)[number];
type TargetOf<C extends { readonly target: z.ZodType }> = z.output<C['target']>;

/** The config lists that hold targets, one per collector. */
export type TargetKind = Collectors['kind'];

/** Every configured target, by the config list that holds it. */
export type Targets = { [C in Collectors as C['kind']]: Array<TargetOf<C>> };

/** Every endpoint of every collector, with the collector's config list. */
export const ENDPOINTS = COLLECTORS.flatMap((c) => c.endpoints.map((endpoint) => ({ kind: c.kind as TargetKind, endpoint })));

/** The families the collection renders, wherever it runs: every collector's, then the jobs' and clients' own. The head of the body. */
export const COLLECTION_FAMILIES: readonly AnyFamily[] = [
  ...COLLECTORS.flatMap((c) => c.families),
  ...jobFamilies,
  ...upstreamFamilies,
  ...tlsFamilies,
  ...nodeTlsFamilies,
] as readonly AnyFamily[];

/** State each collector derives across its targets: made once, kept across reloads. */
export type CollectorStates = ReadonlyMap<TargetKind, unknown>;
export const collectorStates = (): CollectorStates => new Map(COLLECTORS.map((c) => [c.kind, c.state()]));

const targetsOf = (targets: Targets, c: Collectors): readonly never[] => targets[c.kind] as unknown as readonly never[];

/** Every scheduled job of one config: one per target × plan the target takes. */
export function buildJobs(targets: Targets, ctx: BuildContext, states: CollectorStates): Job[] {
  return COLLECTORS.flatMap((c) => (c as Collector).jobs(targetsOf(targets, c), ctx, states.get(c.kind)));
}

/** Once the previous config's jobs stopped: each collector's state forgets its removed targets. */
export function settleStates(targets: Targets, store: GroupWriter, states: CollectorStates): void {
  for (const c of COLLECTORS as readonly Collector[]) c.settle?.(states.get(c.kind as TargetKind), targetsOf(targets, c as Collectors), { store });
}

/** Each target name → its config entries (of any kind) as text: a reload tells a changed target by it. */
export function targetConfigs(targets: Targets): Map<string, string> {
  const byName = new Map<string, unknown[]>();
  for (const c of COLLECTORS) {
    for (const t of targets[c.kind] as ReadonlyArray<{ name: string }>) byName.set(t.name, [...(byName.get(t.name) ?? []), c.kind, t]);
  }
  return new Map([...byName].map(([name, entries]) => [name, JSON.stringify(entries)]));
}
