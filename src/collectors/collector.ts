import type { z } from 'zod';
import type { BuildContext } from '../jobs/context.js';
import type { Job } from '../jobs/part.js';
import type { AnyFamily, Labels } from '../metrics/family.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { UpstreamError } from '../upstream/errors.js';
import { taskName } from './decoding.js';
import { feedsOf, switchFields, type AnyEndpoint } from './endpoint.js';
import { derivedFamilies, planEndpoints, type Plan, type StepOutcome } from './plan.js';
import { planJob } from './run-plan.js';

/**
 * What a collector declares: the config list of its targets and a target's own fields, its plans
 * (one job each per target, the endpoints they call), the families derived across its targets, and
 * what one target's calls share. Everything else follows from these (`defineCollector`).
 */
export interface CollectorSpec<K extends string, S extends z.ZodRawShape, St, C extends { readonly client: UpstreamClient }> {
  /** The config list of its targets (`secrets`, `agents`, `teams`). */
  readonly kind: K;
  /** One target's own config fields: the switches of its optional endpoints are added to them. */
  readonly target: z.ZodObject<S>;
  readonly plans: readonly Plan<z.output<z.ZodObject<S>>, C>[];
  /** Families derived across targets from the state (WAL lag, replication sets), which no plan's step exports. */
  readonly derived?: readonly AnyFamily[];
  /** Labels on every part of a target's runs. */
  readonly context?: (target: z.output<z.ZodObject<S>>) => Labels;
  /** What a target's calls share: made once per target and config, it makes what each run's calls share. */
  readonly call: (target: z.output<z.ZodObject<S>>, ctx: BuildContext, state: St) => (signal: AbortSignal) => C;
  /** How the upstream's own ways of refusing are named (the secrets service's "sealed"). */
  readonly failure?: (err: UpstreamError) => UpstreamError;
  /** State derived across targets, made once and kept across reloads (WAL lag, replication sets). */
  state(): St;
  /** Runs once the previous config's jobs have stopped and the new ones are built: the state forgets the removed targets. */
  settle?(state: St, targets: readonly z.output<z.ZodObject<S>>[], ctx: Pick<BuildContext, 'store'>): void;
  /** After each commit of one of its jobs, with the run's outcomes and the config's targets (state derived across targets). */
  afterCommit?(
    state: St,
    target: z.output<z.ZodObject<S>>,
    outcomes: readonly StepOutcome[],
    targets: readonly z.output<z.ZodObject<S>>[],
    ctx: BuildContext,
  ): void;
  /** The key a target is sharded by, where it is not its name (clusters of one replication set stay on one shard). */
  shardKeys?(targets: readonly z.output<z.ZodObject<S>>[]): ReadonlyMap<string, string>;
}

/** Everything vigil knows of one upstream, in one place (`src/collectors/<upstream>/`), as the daemon, the config, the docs and the tests use it. */
export interface Collector<K extends string = string, T = unknown, St = unknown> {
  readonly kind: K;
  /** What it was made of: a test makes a variant of it (an endpoint switched). */
  readonly spec: CollectorSpec<K, z.ZodRawShape, St, { readonly client: UpstreamClient }>;
  /** One target's config, its endpoints' switches included (unknown keys are errors). */
  readonly target: z.ZodType<T>;
  readonly plans: readonly Plan[];
  /** Every endpoint its plans call, once each, in plan order. */
  readonly endpoints: readonly AnyEndpoint[];
  /** Every family it exports, in exposition order: each endpoint's feeds, the plans' derived parts, then what it derives across targets. */
  readonly families: readonly AnyFamily[];
  /** Families no endpoint feeds: derived from a run (the plans' derived steps) or across targets. */
  readonly derived: readonly AnyFamily[];
  jobs(targets: readonly T[], ctx: BuildContext, state: St): Job[];
  state(): St;
  settle?(state: St, targets: readonly T[], ctx: Pick<BuildContext, 'store'>): void;
  shardKeys?(targets: readonly T[]): ReadonlyMap<string, string>;
}

const unique = <X extends { readonly name?: string; readonly id?: string }>(xs: readonly X[]): X[] => {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const key = x.id ?? x.name ?? '';
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/**
 * Makes a collector of its spec: its endpoints are those its plans call, its target schema gets a
 * switch per optional endpoint (from the endpoint's declaration: key, default), its families follow
 * from its endpoints' feeds and its plans' derived steps, and its jobs are its plans run by the one
 * runner. Refuses at load an endpoint declared twice under one id, a family exported twice, and a
 * decoding task that src/collectors/decoding.ts does not list.
 */
export function defineCollector<K extends string, S extends z.ZodRawShape, St, C extends { readonly client: UpstreamClient }>(
  spec: CollectorSpec<K, S, St, C>,
): Collector<K, z.output<z.ZodObject<S>>, St> {
  type T = z.output<z.ZodObject<S>>;
  const plans = spec.plans as unknown as readonly Plan[];
  const all = plans.flatMap(planEndpoints);
  const endpoints = unique(all);
  for (const e of endpoints) {
    if (all.filter((x) => x.id === e.id).some((x) => x !== e)) throw new Error(`collector ${spec.kind}: two endpoints are declared ${e.id}`);
    if (e.offload) taskName(e.offload.task);
  }
  const derived = unique([...plans.flatMap(derivedFamilies), ...(spec.derived ?? [])]);
  const families = [...endpoints.flatMap(feedsOf), ...derived];
  const names = families.map((f) => f.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i && families[i] !== families[names.indexOf(n)]);
  if (twice) throw new Error(`collector ${spec.kind}: two families are named ${twice}`);
  const context = spec.context ?? ((t: T) => ({ target: (t as { name: string }).name }));
  return {
    kind: spec.kind,
    spec: spec as unknown as Collector<K, T, St>['spec'],
    target: spec.target.extend(switchFields(endpoints)) as unknown as z.ZodType<T>,
    plans,
    endpoints,
    families: unique(families),
    derived,
    state: () => spec.state(),
    jobs: (targets, ctx, state) =>
      targets.flatMap((t) => {
        const target = { kind: spec.kind, target: t as { name: string }, context: context(t), call: spec.call(t, ctx, state), failure: spec.failure };
        return plans.flatMap((plan) => {
          const job = planJob(plan, target, ctx);
          if (!job || !spec.afterCommit) return job ? [job] : [];
          return [{ ...job, afterCommit: (outcomes) => spec.afterCommit?.(state, t, outcomes, targets, ctx) }];
        });
      }),
    ...(spec.settle ? { settle: (state, targets, ctx) => spec.settle?.(state, targets, ctx) } : {}),
    ...(spec.shardKeys ? { shardKeys: (targets) => spec.shardKeys!(targets) } : {}),
  };
}
