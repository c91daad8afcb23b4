import { family, single, type Family } from '../../metrics/family.js';
import { capped } from '../../metrics/series-cap.js';

/** What the bound reads and rewrites of a status: the peers it lists. */
interface Peers {
  readonly mode: string;
  readonly known_secondaries: readonly string[];
  readonly secondaries?: ReadonlyArray<{ readonly node_id?: string | undefined; readonly connection_status?: string | undefined }> | undefined;
  readonly primaries: ReadonlyArray<{ readonly connection_status?: string | undefined }>;
  readonly known_primary_cluster_addrs: readonly string[];
}

const down = (p: { readonly connection_status?: string | undefined }) => p.connection_status !== 'connected';

/**
 * A status with at most `max` peers of each list (known secondaries, listed secondaries, primaries,
 * known primary addresses), those not connected first, and how many were left out. A primary
 * replicates to a handful of clusters; an answer listing thousands costs one pass, never a series
 * each. Counts (`known_secondaries`) stay those of the whole answer.
 */
export function boundPeers<S extends Peers>(s: S, max: number): S & { readonly peers_dropped: number; readonly known_secondaries_total: number } {
  const connected = new Set((s.secondaries ?? []).flatMap((p) => (down(p) || p.node_id === undefined ? [] : [p.node_id])));
  const known = capped(s.known_secondaries, max, (id) => !connected.has(id));
  const secondaries = s.secondaries && capped(s.secondaries, max, down);
  const primaries = capped(s.primaries, max, down);
  const addrs = capped(s.known_primary_cluster_addrs, max);
  return {
    ...s,
    known_secondaries: known.kept,
    secondaries: secondaries?.kept,
    primaries: primaries.kept,
    known_primary_cluster_addrs: addrs.kept,
    known_secondaries_total: s.known_secondaries.length,
    peers_dropped: known.dropped + (secondaries?.dropped ?? 0) + primaries.dropped + addrs.dropped,
  };
}

export const peersDroppedFamily: Family<{ readonly peers_dropped?: number }> = family({
  name: 'secrets_replication_peer_series_dropped',
  help: 'Peers (known and listed secondaries, primaries) the status listed beyond max_replication_peers per list, left without series of their own (those not connected are kept first); from a scheduled poll of sys/replication/<kind>/status.',
  type: 'gauge',
  section: 'secrets',
  labels: ['target', 'kind'],
  samples: single((s) => s.peers_dropped),
});
