/**
 * Which configured cluster an address that an answer names (a secondary's primaries' `api_address`)
 * stands for. A target's `address` may carry a path prefix, so clusters behind one proxy share a
 * scheme, host and port: the path tells them apart, and an address several configured clusters
 * share names none of them. Pure.
 */
export interface Address {
  /** Scheme, host and port, as `new URL` writes them (default port left out, host in lower case). */
  origin: string;
  /** The origin and the path, without trailing slashes: a cluster behind a path prefix is its own. */
  full: string;
  hasPath: boolean;
}

export function parseAddress(url: string): Address {
  try {
    const u = new URL(url);
    const path = u.pathname.replace(/\/+$/, '');
    // Not `u.origin`: it is "null" for a scheme URL does not know, which would make such addresses one.
    const origin = `${u.protocol}//${u.host}`;
    return { origin, full: `${origin}${path}`, hasPath: path !== '' };
  } catch {
    return { origin: url, full: url, hasPath: false };
  }
}

export interface ConfiguredCluster {
  target: string;
  address: string;
}

/** What an address resolves to: one configured cluster, several (it proves nothing), or none. */
export type Resolved = { target: string } | 'shared' | undefined;

export class ClusterAddresses {
  private readonly byFull = new Map<string, Set<string>>();
  private readonly byOrigin = new Map<string, Set<string>>();

  constructor(clusters: Iterable<ConfiguredCluster>, parse: (url: string) => Address = parseAddress) {
    for (const c of clusters) {
      const a = parse(c.address);
      add(this.byFull, a.full, c.target);
      add(this.byOrigin, a.origin, c.target);
    }
  }

  /**
   * The configured cluster at exactly this address (its path included); for an address without a
   * path, else the one configured cluster at its origin (a target configured with a prefix behind
   * the address the cluster reports for itself).
   */
  resolve(a: Address): Resolved {
    const exact = this.byFull.get(a.full);
    if (exact) return one(exact);
    return a.hasPath ? undefined : one(this.byOrigin.get(a.origin));
  }
}

function add(index: Map<string, Set<string>>, key: string, target: string): void {
  const found = index.get(key);
  if (found) found.add(target);
  else index.set(key, new Set([target]));
}

const one = (targets: ReadonlySet<string> | undefined): Resolved =>
  targets === undefined ? undefined : targets.size === 1 ? { target: [...targets][0]! } : 'shared';
