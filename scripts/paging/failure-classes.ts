/**
 * Every failure vigil can see, and the alert that tells of it: the rows of docs/paging.md. The
 * alert's severity, `for:`, routes and inhibitions are read from the shipped files when the doc is
 * generated; `proof` says which test holds the row true: `live` rows are produced in
 * test/e2e/paging.test.ts by a simulator fault, through a real Prometheus and Alertmanager running
 * the shipped files with two vigils; `promtool` rows by the unit tests of alerts/tests/ (a clock
 * a live run cannot wait for, or a condition no simulator makes).
 */
export interface FailureClass {
  /** Stable id, used by the live test to find its fault. */
  readonly id: string;
  readonly area: 'Secrets service' | 'Cluster agents' | 'Team management' | 'vigil and the alert path';
  readonly failure: string;
  /** The alert that tells of it; for a control, the alert it must not raise. */
  readonly alert: string;
  /**
   * A control, not a failure: an estate that is right though it could be taken for `alert`'s
   * condition. It must page nobody: the live test fails on any page its faults did not cause.
   */
  readonly control?: true;
  readonly proof: 'live' | 'promtool';
  /** How it is told apart from its neighbours, when it matters. */
  readonly note?: string;
}

export const FAILURE_CLASSES: readonly FailureClass[] = [
  {
    id: 'secrets-unreachable',
    area: 'Secrets service',
    failure: 'a cluster refuses connections (down, wrong port, firewall)',
    alert: 'SecretsServiceDown',
    proof: 'live',
  },
  { id: 'secrets-hung', area: 'Secrets service', failure: 'a cluster accepts connections and never answers', alert: 'SecretsServiceDown', proof: 'live' },
  { id: 'secrets-5xx', area: 'Secrets service', failure: 'a cluster answers 5xx', alert: 'SecretsServiceDown', proof: 'live' },
  {
    id: 'secrets-sealed',
    area: 'Secrets service',
    failure: 'a cluster is sealed (503 "sealed")',
    alert: 'SecretsSealed',
    proof: 'live',
    note: 'not SecretsServiceDown: one page for one cause',
  },
  {
    id: 'secrets-denied',
    area: 'Secrets service',
    failure: 'a cluster refuses vigil (403)',
    alert: 'VigilCollectorFailing',
    proof: 'live',
    note: "vigil's operator's: token or policy",
  },
  {
    id: 'secrets-standby',
    area: 'Secrets service',
    failure: 'the address reaches a standby node (429, 472, 473)',
    alert: 'VigilCollectorFailing',
    proof: 'promtool',
    note: "vigil's operator's: point it at the active node",
  },
  {
    id: 'secrets-garbage',
    area: 'Secrets service',
    failure: 'a cluster answers what vigil cannot read',
    alert: 'VigilCollectorFailing',
    proof: 'live',
    note: "vigil's operator's: report the answer; never a false page",
  },
  {
    id: 'secrets-disconnected',
    area: 'Secrets service',
    failure: 'a secondary disconnects from its primary',
    alert: 'SecretsReplicationSecondaryDisconnected',
    proof: 'live',
    note: 'not while the secondary answers sealed: its seal pages',
  },
  {
    id: 'secrets-secondary-sealed',
    area: 'Secrets service',
    failure: 'a secondary is sealed',
    alert: 'SecretsSealed',
    proof: 'live',
    note: "one page for one cause: its primary's SecretsReplicationSecondaryDisconnected for it is held while vigil links the two and the seal lasts",
  },
  {
    id: 'secrets-secondary-unreachable',
    area: 'Secrets service',
    failure: 'a secondary stops answering (refused, hung, 5xx)',
    alert: 'SecretsServiceDown',
    proof: 'promtool',
    note: "its primary's SecretsReplicationSecondaryDisconnected pages too if the primary loses it: vigil's path to it is not the primary's, so vigil cannot tell one cause from two",
  },
  {
    id: 'secrets-heartbeat',
    area: 'Secrets service',
    failure: 'a replication peer stops sending heartbeats',
    alert: 'SecretsReplicationHeartbeatStale',
    proof: 'promtool',
  },
  { id: 'secrets-wal-lag', area: 'Secrets service', failure: 'a secondary falls behind its primary', alert: 'SecretsReplicationWALLagHigh', proof: 'promtool' },
  {
    id: 'secrets-not-streaming',
    area: 'Secrets service',
    failure: 'a secondary is stuck in merkle-diff/merkle-sync',
    alert: 'SecretsReplicationNotStreaming',
    proof: 'promtool',
  },
  { id: 'secrets-merkle', area: 'Secrets service', failure: 'a merkle tree is corrupted', alert: 'SecretsMerkleTreeCorrupted', proof: 'live' },
  {
    id: 'secrets-no-primary',
    area: 'Secrets service',
    failure: 'no watched cluster is primary any more',
    alert: 'SecretsReplicationNoPrimary',
    proof: 'promtool',
  },
  {
    id: 'secrets-split-brain',
    area: 'Secrets service',
    failure: 'two clusters of one replication set are primary',
    alert: 'SecretsReplicationSplitBrain',
    proof: 'live',
  },
  {
    id: 'secrets-proxy-sets',
    area: 'Secrets service',
    failure: 'two clusters behind one proxy (one host and port, a path prefix each) are primaries of different replication sets',
    alert: 'SecretsReplicationSplitBrain',
    control: true,
    proof: 'live',
    note: 'no failure: only an address an answer names links clusters, and one several targets share links none',
  },
  {
    id: 'secrets-primary-not-watched',
    area: 'Secrets service',
    failure: 'a secondary follows a primary vigil does not watch',
    alert: 'SecretsReplicationPrimaryNotWatched',
    proof: 'promtool',
  },
  {
    id: 'secrets-primary-changed',
    area: 'Secrets service',
    failure: 'a secondary was given another primary',
    alert: 'SecretsReplicationPrimaryChanged',
    proof: 'promtool',
  },
  {
    id: 'secrets-dr-token-attempt',
    area: 'Secrets service',
    failure: 'a DR operation token attempt is open',
    alert: 'SecretsDROperationTokenAttemptOpen',
    proof: 'promtool',
  },
  {
    id: 'secrets-dr-token-attempt-long',
    area: 'Secrets service',
    failure: 'a DR operation token attempt stays open over 30 minutes',
    alert: 'SecretsDROperationTokenAttemptOpenLong',
    proof: 'promtool',
  },
  {
    id: 'upstream-cert-soon',
    area: 'Secrets service',
    failure: "an upstream's certificate expires within 14 days",
    alert: 'VigilUpstreamCertificateExpiresSoon',
    proof: 'promtool',
    note: 'every HTTPS upstream, agents and teams too',
  },
  {
    id: 'upstream-cert-imminent',
    area: 'Secrets service',
    failure: "an upstream's certificate expires within 2 days",
    alert: 'VigilUpstreamCertificateExpiresImminently',
    proof: 'promtool',
    note: 'every HTTPS upstream, agents and teams too',
  },

  { id: 'agent-unreachable', area: 'Cluster agents', failure: 'an agent refuses connections', alert: 'SchedulerAgentDown', proof: 'live' },
  { id: 'agent-hung', area: 'Cluster agents', failure: 'an agent accepts connections and never answers', alert: 'SchedulerAgentDown', proof: 'live' },
  {
    id: 'agent-denied',
    area: 'Cluster agents',
    failure: "an agent refuses vigil's token (403)",
    alert: 'VigilCollectorFailing',
    proof: 'live',
    note: "vigil's operator's: the token's policy",
  },
  { id: 'agent-unhealthy', area: 'Cluster agents', failure: 'an agent reports itself unhealthy', alert: 'SchedulerAgentUnhealthy', proof: 'live' },
  { id: 'agent-member-failed', area: 'Cluster agents', failure: 'a gossip member fails', alert: 'SchedulerAgentMemberFailed', proof: 'live' },
  { id: 'agent-no-servers', area: 'Cluster agents', failure: 'a client knows no servers', alert: 'SchedulerAgentNoKnownServers', proof: 'live' },
  {
    id: 'agent-no-leader',
    area: 'Cluster agents',
    failure: 'no server of a region is or follows a raft leader',
    alert: 'SchedulerAgentNoRaftLeader',
    proof: 'live',
  },
  {
    id: 'agent-servers-below',
    area: 'Cluster agents',
    failure: 'an agent knows fewer servers than expected',
    alert: 'SchedulerAgentServersBelowExpected',
    proof: 'promtool',
  },
  {
    id: 'agent-members-lost',
    area: 'Cluster agents',
    failure: 'several gossip members fail or leave within 15 minutes',
    alert: 'SchedulerAgentGossipMembersLost',
    proof: 'promtool',
  },
  {
    id: 'agent-gossip-unhealthy',
    area: 'Cluster agents',
    failure: "an agent's gossip health score is bad",
    alert: 'SchedulerAgentGossipUnhealthy',
    proof: 'promtool',
  },
  {
    id: 'agent-raft-apply',
    area: 'Cluster agents',
    failure: 'a server applies raft entries too slowly',
    alert: 'SchedulerAgentRaftApplyLagging',
    proof: 'promtool',
  },
  {
    id: 'agent-raft-contact',
    area: 'Cluster agents',
    failure: 'a follower hears from its leader too rarely',
    alert: 'SchedulerAgentRaftLastContactHigh',
    proof: 'promtool',
  },
  {
    id: 'agent-disk-full',
    area: 'Cluster agents',
    failure: "a disk of an agent's host is over 90% full",
    alert: 'SchedulerAgentHostDiskAlmostFull',
    proof: 'promtool',
  },
  {
    id: 'agent-disk-filling',
    area: 'Cluster agents',
    failure: "a disk of an agent's host fills within a day",
    alert: 'SchedulerAgentHostDiskFillingUp',
    proof: 'promtool',
  },
  { id: 'agent-series-dropped', area: 'Cluster agents', failure: 'a gossip pool outgrows max_members', alert: 'VigilSeriesDropped', proof: 'promtool' },

  { id: 'teams-down', area: 'Team management', failure: 'the service does not answer (refused, hung, 5xx)', alert: 'TeamsServiceDown', proof: 'live' },
  {
    id: 'teams-denied',
    area: 'Team management',
    failure: "the service refuses vigil's token, or rate-limits it",
    alert: 'VigilCollectorFailing',
    proof: 'promtool',
    note: "vigil's operator's",
  },
  { id: 'teams-count-dropped', area: 'Team management', failure: 'many teams are deleted within an hour', alert: 'TeamsCountDropped', proof: 'live' },
  {
    id: 'teams-owners-dropped',
    area: 'Team management',
    failure: 'the owners team loses many users within an hour',
    alert: 'TeamsOwnersDropped',
    proof: 'promtool',
  },
  { id: 'teams-access', area: 'Team management', failure: "a team's organization access breaks a rule", alert: 'TeamsAccessInconsistent', proof: 'promtool' },

  { id: 'vigil-killed', area: 'vigil and the alert path', failure: 'a vigil is killed or hangs', alert: 'VigilDown', proof: 'live' },
  { id: 'vigil-absent', area: 'vigil and the alert path', failure: 'no vigil is left in the scrape job', alert: 'VigilAbsent', proof: 'promtool' },
  {
    id: 'vigil-shard-missing',
    area: 'vigil and the alert path',
    failure: 'a sharded replica is gone, so no vigil polls its shard of the targets',
    alert: 'VigilShardMissing',
    proof: 'promtool',
    note: 'also paged live through the shipped routing by three sharded replicas in test/e2e/sharding.test.ts; VigilDown too while the replica is still a target',
  },
  {
    id: 'vigil-shard-twice',
    area: 'vigil and the alert path',
    failure: 'two replicas are started on the same shard',
    alert: 'VigilShardPolledTwice',
    proof: 'promtool',
  },
  {
    id: 'vigil-total-shards-disagree',
    area: 'vigil and the alert path',
    failure: 'replicas of one job are started with different --total-shards',
    alert: 'VigilTotalShardsDisagree',
    proof: 'promtool',
    note: 'their splits do not line up: some targets are polled twice, others by none, while every shard number looks polled',
  },
  { id: 'vigil-store-down', area: 'vigil and the alert path', failure: "the alert sink's store is unusable", alert: 'VigilAlertStoreDown', proof: 'promtool' },
  {
    id: 'vigil-reload-failed',
    area: 'vigil and the alert path',
    failure: 'a reload finds a configuration that does not load',
    alert: 'VigilConfigReloadFailed',
    proof: 'promtool',
  },
  {
    id: 'vigil-watchdog-missing',
    area: 'vigil and the alert path',
    failure: 'the Watchdog stops reaching vigil',
    alert: 'VigilWatchdogMissing',
    proof: 'promtool',
    note: 'the external heartbeat receiver sees the whole path fail, vigil included',
  },
  {
    id: 'vigil-collection-stale',
    area: 'vigil and the alert path',
    failure: 'a collection has not succeeded for three intervals',
    alert: 'VigilCollectionStale',
    proof: 'promtool',
  },
  {
    id: 'vigil-collector-failing',
    area: 'vigil and the alert path',
    failure: 'a collector keeps failing, any reason',
    alert: 'VigilCollectorFailing',
    proof: 'promtool',
  },
  {
    id: 'vigil-served-cert',
    area: 'vigil and the alert path',
    failure: 'the certificate vigil serves expires within 14 days',
    alert: 'VigilServedCertificateExpiresSoon',
    proof: 'promtool',
  },
  {
    id: 'path-watchdog',
    area: 'vigil and the alert path',
    failure: 'Prometheus, Alertmanager or the path between them stops',
    alert: 'Watchdog',
    proof: 'live',
    note: 'the heartbeat receiver pages when its posts stop',
  },
];
