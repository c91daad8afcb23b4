import type { Config } from '../config/schema.js';
import type { WalLagTracker } from './secrets/wal-lag.js';
import type { BuildContext } from '../jobs/context.js';
import type { Job } from '../jobs/part.js';
import type { AnyFamily } from '../metrics/family.js';

/** The config lists that hold targets, one per upstream. */
export type TargetKind = 'secrets' | 'agents' | 'teams';

/** One upstream endpoint vigil polls, and the families its answer feeds. */
export interface Endpoint {
  method: 'GET' | 'POST';
  /** As the upstream's API documents it; `{x}` is filled from the target's config. */
  path: string;
  feeds: readonly AnyFamily[];
}

/** State the engine keeps across runs and reloads that an area's jobs write into. */
export interface AreaState {
  walLag: WalLagTracker;
}

/**
 * Everything vigil knows of one upstream, in one place: the endpoints it polls, the families it
 * exports (in exposition order), and the jobs one config's targets of it become. The catalog, the
 * job builder and the status page loop over the areas; adding an endpoint touches its schema
 * (`src/upstream/<service>/`), its families (`src/families/<area>/`) and its area file.
 */
export interface Area<K extends TargetKind = TargetKind> {
  kind: K;
  endpoints: readonly Endpoint[];
  families: readonly AnyFamily[];
  jobs(targets: Config[K], ctx: BuildContext, state: AreaState): Job[];
}

/** Checks an area's declaration: each endpoint feeds only families the area exports. */
export function defineArea<K extends TargetKind>(area: Area<K>): Area<K> {
  const own = new Set(area.families.map((f) => f.name));
  for (const e of area.endpoints) {
    const stray = e.feeds.find((f) => !own.has(f.name));
    if (stray) throw new Error(`area ${area.kind}: ${e.path} feeds ${stray.name}, which the area does not export`);
  }
  return area;
}
