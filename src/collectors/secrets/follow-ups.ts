import type { PartOutcome } from '../../jobs/part.js';
import { attemptClock } from './dr-token-attempt.js';
import { primaryChangeCounter, primaryChangesFamily } from './primary-changes.js';
import { sealedFamily } from './seal.js';
import { renderGroup } from '../../metrics/render.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { ReplicationStatus } from '../../upstream/secrets/replication-status.js';
import type { BuildContext } from '../../jobs/context.js';
import { collectEndpoint } from '../endpoint.js';
import { operationTokenAttemptEndpoint } from './endpoints.js';

/**
 * Parts a secrets target's replication job derives from its status polls: whether it is sealed, how
 * often a secondary's primary changed, and,
 * on a DR secondary only (the endpoint exists nowhere else), the DR operation token attempt. The
 * attempt's clock lives as long as the target's job, so a failed poll does not restart it.
 */
export function statusFollowUps(target: string, client: UpstreamClient, ctx: Pick<BuildContext, 'turns'>) {
  const clock = attemptClock();
  const countChanges = primaryChangeCounter();
  return async (statusParts: readonly PartOutcome[], signal: AbortSignal): Promise<PartOutcome[]> => {
    const seal: PartOutcome = { part: 'seal', group: renderGroup([sealedFamily], sealedFrom(statusParts), { target }) };
    const statuses = new Map(statusParts.flatMap((o) => (o.value ? [[o.part, o.value as ReplicationStatus] as const] : [])));
    const changes: PartOutcome = { part: 'primary_changes', group: renderGroup([primaryChangesFamily], countChanges(statuses), { target }) };
    const dr = statuses.get('dr');
    if (dr?.mode !== 'secondary') return [seal, changes];
    const attempt = await collectEndpoint(operationTokenAttemptEndpoint, { client, signal, clock }, { context: { target }, turns: ctx.turns });
    return [seal, changes, attempt];
  };
}

/**
 * Whether a secrets target is sealed, from the outcomes of its status polls: sealed when any kind was
 * answered 503 "sealed", unsealed when any kind was answered with data, unknown (absent) otherwise
 * (a timeout or a refused connection says nothing about the seal).
 */
export function sealedFrom(outcomes: readonly PartOutcome[]): boolean | undefined {
  if (outcomes.some((o) => o.error?.reason === 'sealed')) return true;
  if (outcomes.some((o) => !o.error && !o.notApplicable)) return false;
  return undefined;
}
