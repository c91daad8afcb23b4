import { linkUp, secondaryState, type ClusterModel, type Kind, type Link } from './cluster.js';

/** What a secondary activation token stands for; consumed by the first secondary that uses it. */
export interface ActivationGrant {
  readonly kind: Kind;
  readonly primary: ClusterModel;
  /** Re-enabling a primary changes its cluster ID, which voids the tokens it issued before. */
  readonly primaryClusterId: string;
  readonly secondaryId: string;
  readonly expiresAt: Date;
}

/**
 * The clusters of one simulator process. Replication between them happens here, in memory,
 * because the listeners only serve the client API.
 */
export class Fleet {
  readonly clusters = new Map<string, ClusterModel>();
  readonly activationTokens = new Map<string, ActivationGrant>();
  private timer: NodeJS.Timeout | undefined;

  add(cluster: ClusterModel): void {
    if (this.clusters.has(cluster.name)) throw new Error(`duplicate cluster name "${cluster.name}"`);
    this.clusters.set(cluster.name, cluster);
  }

  /** update-primary pings cluster addresses; the API URL is accepted too for convenience. */
  findByAddress(addr: string): ClusterModel | undefined {
    const wanted = addr.replace(/\/+$/, '');
    return [...this.clusters.values()].find((c) => c.clusterAddr === wanted || c.url === wanted);
  }

  *links(): Iterable<Link> {
    for (const cluster of this.clusters.values()) {
      for (const state of Object.values(cluster.replication)) {
        if (state.role.mode === 'primary') yield* state.role.links.values();
      }
    }
  }

  /** Heartbeats and WAL streaming as of `now`: a live link is fresh, a following secondary caught up. */
  refresh(now = new Date()): void {
    for (const link of this.links()) {
      if (!linkUp(link)) continue;
      if (!link.heartbeatStopped) link.lastHeartbeat = now;
      const primaryRole = link.primary.replication[link.kind].role;
      const secondaryRole = link.secondary.replication[link.kind].role;
      if (primaryRole.mode !== 'primary' || secondaryRole.mode !== 'secondary' || secondaryRole.link !== link) continue;
      if (link.following && secondaryState(secondaryRole) === 'stream-wals') secondaryRole.lastRemoteWal = primaryRole.lastWal;
    }
  }

  /** One WAL entry per tick on every unsealed primary, like a cluster under light write load. */
  tick(now = new Date()): void {
    for (const cluster of this.clusters.values()) {
      if (cluster.sealed) continue;
      for (const state of Object.values(cluster.replication)) {
        if (state.role.mode === 'primary') state.role.lastWal += 1;
      }
    }
    this.refresh(now);
  }

  startTicking(intervalMs: number): void {
    this.stopTicking();
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  stopTicking(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
