import type { SecretsTarget } from './target.js';

/**
 * The key each secrets target is sharded by: its replication sets' name when it names one (the
 * clusters of a set, joined through any set they share, land on one shard, so the set's series and
 * WAL lag are whole), else its own name.
 */
export function secretsShardKeys(targets: readonly SecretsTarget[]): Map<string, string> {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== undefined && parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  const union = (a: string, b: string) => {
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  };
  for (const t of targets) {
    parent.set(`target/${t.name}`, parent.get(`target/${t.name}`) ?? `target/${t.name}`);
    for (const [kind, set] of Object.entries(t.replication_set ?? {})) {
      if (set === undefined) continue;
      const node = `replication_set/${kind}/${set}`;
      if (!parent.has(node)) parent.set(node, node);
      union(`target/${t.name}`, node);
    }
  }
  // Set nodes sort before target nodes, so a joined component's root is its smallest set name.
  return new Map(targets.map((t) => [t.name, find(`target/${t.name}`).replace(/^target\//, '')]));
}
