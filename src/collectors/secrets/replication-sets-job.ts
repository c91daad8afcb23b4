import type { Job } from '../../jobs/part.js';
import { origin, replicationSetFamilies, replicationSets } from './replication-sets.js';
import type { WalLagTracker } from './wal-lag.js';
import type { SecretsTarget } from '../../config/schema.js';
import { renderGroup } from '../../metrics/render.js';
import type { BuildContext } from '../../jobs/context.js';

export const REPLICATION_SETS_GROUP = 'secrets_replication_sets';
/** Addresses kept parsed: far more than an estate names, and a bound on what answers could add. */
const ORIGINS_KEPT = 10_000;

/**
 * Re-derives the replication sets of the configured secrets targets after every commit of a status
 * poll (and once now, so a reload that removes targets drops their sets), from the latest statuses.
 */
export function withReplicationSets(jobs: Job[], targets: readonly SecretsTarget[], ctx: Pick<BuildContext, 'store'>, latest: WalLagTracker): Job[] {
  const byName = new Map(targets.map((t) => [t.name, t]));
  // The addresses seen, parsed once (the configured ones and the primaries' the answers name).
  const origins = new Map<string, string>();
  const originOf = (url: string) => {
    let o = origins.get(url);
    if (o === undefined) {
      if (origins.size > ORIGINS_KEPT) origins.clear();
      origins.set(url, (o = origin(url)));
    }
    return o;
  };
  const publish = () => {
    const members = latest.statuses().flatMap((l) => {
      const t = byName.get(l.target);
      return t ? [{ ...l, address: t.address, explicit: t.replication_set?.[l.kind] }] : [];
    });
    ctx.store.replace(REPLICATION_SETS_GROUP, renderGroup(replicationSetFamilies, replicationSets(members, originOf), {}));
  };
  publish();
  return jobs.map((job) =>
    job.collector !== 'secrets_replication'
      ? job
      : {
          ...job,
          afterCommit: (outcomes) => {
            job.afterCommit?.(outcomes);
            publish();
          },
        },
  );
}
