import { COLLECTION_FAMILIES } from './collectors/index.js';
import type { AnyFamily } from './metrics/family.js';
import { httpFamilies } from './metrics/http-families.js';
import { shardFamilies } from './metrics/shard-families.js';
import { daemonFamilies } from './metrics/daemon-families.js';
import { sinkFamilies } from './sink/families.js';

export { COLLECTION_FAMILIES };

/** The families the main thread renders (the alert sink, the daemon, the HTTP server): the tail. */
export const DAEMON_FAMILIES: readonly AnyFamily[] = [...sinkFamilies, ...daemonFamilies, ...shardFamilies, ...httpFamilies] as readonly AnyFamily[];

/**
 * Every metric family vigil exports, in exposition order: the single source for rendering,
 * docs/metrics.md, and the checks that dashboards and alert rules only use metrics that exist.
 */
export const CATALOG: readonly AnyFamily[] = [...COLLECTION_FAMILIES, ...DAEMON_FAMILIES];

const names = CATALOG.map((f) => f.name);
const dup = names.find((n, i) => names.indexOf(n) !== i);
if (dup) throw new Error(`metric ${dup} is declared twice in the catalog`);
