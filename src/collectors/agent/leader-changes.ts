import { family, single, type Family } from '../../metrics/family.js';

/**
 * Counts, per target, how often the raft leader its autopilot health names changed between two
 * polls. The agent collector's state, made once and kept across reloads: a reload while a leader
 * flaps must not hide the flapping behind a counter that starts again at 0. A target removed from
 * the config is forgotten.
 */
export class LeaderChanges {
  private readonly seen = new Map<string, { leader: string | undefined; changes: number }>();

  /** One poll's leader (undefined: the answer named none, or there was no answer). The count so far, once a leader was seen. */
  record(target: string, leader: string | undefined): number | undefined {
    const last = this.seen.get(target);
    if (leader === undefined) return last?.changes;
    if (last === undefined) {
      this.seen.set(target, { leader, changes: 0 });
      return 0;
    }
    // A poll without a leader between two is no change of its own: counted when a new one is named.
    if (last.leader !== undefined && last.leader !== leader) last.changes += 1;
    last.leader = leader;
    return last.changes;
  }

  /** Keeps only the targets of the new config. */
  keep(targets: ReadonlySet<string>): void {
    for (const t of this.seen.keys()) if (!targets.has(t)) this.seen.delete(t);
  }
}

export const leaderChangesFamily: Family<number | undefined> = family<number | undefined>({
  name: 'scheduler_agent_autopilot_leader_changes_total',
  help: "Times the raft leader named by this agent's autopilot health changed between two scheduled polls, since vigil started (kept across reloads); present once a leader was seen.",
  type: 'counter',
  section: 'agent',
  labels: ['target'],
  samples: single((n) => n),
});
