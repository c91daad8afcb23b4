import type { RenderedGroup } from '../../metrics/render.js';
import { fetchMembersBytes, type AgentAuth } from '../../upstream/agent/api.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { BuildContext } from '../../jobs/context.js';
import { decodeBody } from '../offload.js';

/** One poll's lines, and the members left out by `max_members` summed over the target's polls. */
export interface MembersResult {
  readonly group: RenderedGroup;
  readonly droppedTotal: number;
}

/**
 * Polls one target's gossip pool. Keeps what must outlive a poll: the dropped-members counter, and
 * whether the cap was already reported (once per target and config, so a log is not flooded).
 */
export function membersPoller(t: { name: string; max_members: number }, ctx: Pick<BuildContext, 'offload' | 'turns' | 'log'>) {
  let droppedTotal = 0;
  let reported = false;
  const context = { target: t.name, endpoint: 'members' };

  return async (client: UpstreamClient, auth: AgentAuth, signal: AbortSignal): Promise<MembersResult> => {
    const body = await fetchMembersBytes(client, auth, signal);
    const poll = await decodeBody(ctx, 'agent-members', body, { body, max: t.max_members, context });
    droppedTotal += poll.dropped;
    if (poll.dropped > 0 && !reported) {
      reported = true;
      ctx.log.warn(
        { target: t.name, members: poll.members, max_members: t.max_members, dropped: poll.dropped },
        'gossip pool larger than max_members: members beyond it get no per-member series (raise max_members to keep them)',
      );
    }
    return { group: new Map(poll.group), droppedTotal };
  };
}
