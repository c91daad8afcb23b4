import type { RenderedGroup } from '../../metrics/render.js';
import { answerMemoFor, type BuildContext } from '../../jobs/context.js';
import { OFFLOAD_BYTES, decodeBody } from '../offload.js';
import { warnOnce } from '../series-cap.js';
import type { MembersPoll } from './members-poll.js';

/** One poll's lines, and the members left out by `max_members` summed over the target's polls. */
export interface MembersResult {
  readonly group: RenderedGroup;
  readonly droppedTotal: number;
}

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

/** Decodes and renders one target's gossip pool answers (off the collection thread when large), counting what the cap leaves out. */
export function membersPoller(t: { name: string; max_members: number }, ctx: BuildContext): (body: Buffer) => Promise<MembersResult> {
  const count = droppedCounter(t, ctx.log);
  const context = { target: t.name, endpoint: 'members' };
  // A gossip pool changes rarely: an unchanged answer's lines are reused rather than decoded and rendered again.
  const memo = answerMemoFor('agents', t, ctx);
  const remembered = { memo, endpoint: 'agent/members' };
  return async (body) => count(await decodeBody(ctx, 'agent-members', body, { body, max: t.max_members, context }, OFFLOAD_BYTES, remembered));
}
