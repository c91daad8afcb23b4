import type { BuildContext } from '../../jobs/context.js';
import { warnOnce } from '../../support/warn-once.js';
import type { MembersPoll, MembersResult } from './members.js';

/**
 * Adds up one target's members left out by `max_members` over its polls (a counter must be
 * cumulative), and reports the cap once per target and config, so a log is not flooded.
 */
export function droppedCounter(t: { name: string; max_members: number }, log: Pick<BuildContext['log'], 'warn'>): (poll: MembersPoll) => MembersResult {
  let droppedTotal = 0;
  const warn = warnOnce(log, 'gossip pool larger than max_members: members beyond it get no per-member series (raise max_members to keep them)');
  return (poll) => {
    droppedTotal += poll.dropped;
    if (poll.dropped > 0) warn({ target: t.name, members: poll.members, max_members: t.max_members, dropped: poll.dropped });
    return { group: new Map(poll.group), droppedTotal };
  };
}
