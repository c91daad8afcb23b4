import { clientFor, spacerFor, type BuildContext } from '../../jobs/context.js';
import { readSecretFile } from '../../jobs/secret-file.js';
import { warnOnce } from '../../support/warn-once.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { MAX_RATE_LIMIT_WAIT_MS } from '../../upstream/request-spacer.js';
import { backoffOn, firstOf, waitOnRateLimit } from '../../upstream/retry.js';
import type { Sent } from '../endpoint.js';
import type { LastPass } from './pages.js';
import type { TeamsListing } from './tally.js';
import type { TeamsTarget } from './target.js';

/**
 * The service answers 429 beyond its per-token rate: wait what it advertises, a bounded number of
 * times. A gateway hiccup (502-504) on one page would otherwise throw away the whole listing.
 */
const teamsRetry = firstOf(
  waitOnRateLimit({ maxRetries: 5, defaultMs: 1_000, maxWaitMs: MAX_RATE_LIMIT_WAIT_MS }),
  backoffOn([502, 503, 504], { maxRetries: 2, baseMs: 500, capMs: 2_000 }),
);

/**
 * What one teams target's calls share in one run: its pooled client, paced below the service's rate
 * limit per token (targets spending the same token file at one service share a budget), its token
 * (read once a run), the requests it made, and the warning once per config that max_teams bites.
 */
export interface TeamsCall {
  readonly target: TeamsTarget;
  readonly client: UpstreamClient;
  authorized(): Promise<Sent>;
  /** HTTP requests the target's client made so far (retries and shows included). */
  requests(): number;
  /** Told of each complete listing (to report teams past max_teams). */
  listed(listing: TeamsListing): void;
  /** The target's last complete pass over its listing's pages, kept across runs. */
  readonly lastPass: LastPass;
}

export function teamsCall(t: TeamsTarget, ctx: BuildContext): (signal: AbortSignal) => TeamsCall {
  const budget = spacerFor(ctx, `${new URL(t.address).origin} ${t.token_file}`, t.requests_per_second);
  let requests = 0;
  const client = clientFor('teams', t, ctx, {
    retry: teamsRetry,
    beforeAttempt: (signal) => budget.take(signal),
    onResponse: (_endpoint, status, headers) => {
      requests += 1;
      budget.observe(status, headers);
    },
  });
  const warnCap = warnOnce(
    ctx.log,
    'organization has more teams than max_teams: teams beyond it are counted without series of their own (raise max_teams to keep them)',
  );
  const listed = (l: TeamsListing) => {
    if (l.untracked > 0) warnCap({ target: t.name, teams: l.kept.length + l.untracked, max_teams: t.max_teams, untracked: l.untracked });
  };
  const lastPass: LastPass = { pages: [] };
  return () => {
    let token: Promise<string> | undefined;
    return {
      target: t,
      client,
      authorized: async () => ({
        headers: { accept: 'application/vnd.api+json', authorization: `Bearer ${await (token ??= readSecretFile(t.token_file, 'token_file'))}` },
      }),
      requests: () => requests,
      listed,
      lastPass,
    };
  };
}
