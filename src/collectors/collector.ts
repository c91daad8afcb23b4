import type { z } from 'zod';
import type { BuildContext } from '../jobs/context.js';
import type { Job } from '../jobs/part.js';
import type { AnyFamily } from '../metrics/family.js';
import { feedsOf, type AnyEndpoint } from './endpoint.js';

/** The config lists that hold targets, one per upstream. */
export type TargetKind = 'secrets' | 'agents' | 'teams';

/**
 * Everything vigil knows of one upstream, in one place (`src/collectors/<upstream>/`): the schema of
 * one target in the config, the endpoints it polls, the families it exports (in exposition order),
 * the jobs one config's targets of it become, and the state it derives across its targets. The
 * catalog, the job builder, the docs and the tests loop over the collectors.
 */
export interface Collector<K extends TargetKind = TargetKind, T = unknown, S = unknown> {
  /** The config list of its targets. */
  readonly kind: K;
  /** One target's config, switches of optional endpoints included. */
  readonly target: z.ZodType<T>;
  readonly endpoints: readonly AnyEndpoint[];
  readonly families: readonly AnyFamily[];
  /**
   * Families that no single answer feeds: from the target's config (an expected count) or derived
   * across targets (WAL lag, replication sets). Every other family must be fed by an endpoint.
   */
  readonly derived?: readonly AnyFamily[];
  /** State derived across targets, made once and kept across reloads (WAL lag, replication sets). */
  state(): S;
  jobs(targets: readonly T[], ctx: BuildContext, state: S): Job[];
  /**
   * Runs once the previous config's jobs have stopped and the new ones are built: the state forgets
   * what the removed targets left, and what it renders is published afresh.
   */
  settle?(state: S, targets: readonly T[], ctx: Pick<BuildContext, 'store'>): void;
}

/**
 * Checks a collector's declaration: every endpoint feeds only families the collector exports, and
 * every family it exports is fed by an endpoint or declared `derived`; endpoint ids are unique.
 */
export function defineCollector<K extends TargetKind, T, S>(c: Collector<K, T, S>): Collector<K, T, S> {
  const own = new Set(c.families.map((f) => f.name));
  const fed = new Set((c.derived ?? []).map((f) => f.name));
  const ids = new Set<string>();
  for (const e of c.endpoints) {
    if (ids.has(e.id)) throw new Error(`collector ${c.kind}: endpoint ${e.id} is declared twice`);
    ids.add(e.id);
    for (const f of feedsOf(e)) {
      if (!own.has(f.name)) throw new Error(`collector ${c.kind}: ${e.id} feeds ${f.name}, which the collector does not export`);
      fed.add(f.name);
    }
  }
  const orphan = c.families.find((f) => !fed.has(f.name));
  if (orphan) throw new Error(`collector ${c.kind}: ${orphan.name} is fed by no endpoint and not declared derived`);
  return c;
}
