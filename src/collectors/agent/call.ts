import { clientFor, type BuildContext } from '../../jobs/context.js';
import { optionalSecretFile } from '../../jobs/secret-file.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { AgentAuth } from './auth.js';
import type { JobFailures } from './job-failures.js';
import type { LeaderChanges } from './leader-changes.js';
import { droppedCounter } from './members-dropped.js';
import type { MembersPoll, MembersResult } from './members.js';
import type { AgentTarget } from './target.js';

/**
 * What one agent target's calls share in one run: its pooled client, its token (read once a run, and
 * only if a part needs it: a rotated token is picked up by the next run), the count of members its
 * polls left out, the leader changes its autopilot answers name, the tracks of its jobs listing.
 */
export interface AgentCall extends AgentAuth {
  readonly target: AgentTarget;
  readonly client: UpstreamClient;
  readonly countDropped: (poll: MembersPoll) => MembersResult;
  readonly leaders: LeaderChanges;
  readonly jobFailures: JobFailures;
}

export function agentCall(
  t: AgentTarget,
  ctx: BuildContext,
  { leaders, jobFailures }: { leaders: LeaderChanges; jobFailures: JobFailures },
): (signal: AbortSignal) => AgentCall {
  const client = clientFor('agents', t, ctx);
  const countDropped = droppedCounter(t, ctx.log);
  return () => {
    let token: Promise<string | undefined> | undefined;
    return {
      target: t,
      client,
      authorized: async () => {
        const value = await (token ??= optionalSecretFile(t.token_file, 'token_file'));
        const headers: Record<string, string> = value ? { 'x-scheduler-token': value } : {};
        return { headers };
      },
      countDropped,
      leaders,
      jobFailures,
    };
  };
}
