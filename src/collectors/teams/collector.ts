import { answerMemoFor, clientFor, spacerFor, type BuildContext } from '../../jobs/context.js';
import type { Job } from '../../jobs/part.js';
import { readSecretFile } from '../../jobs/secret-file.js';
import { renderGroup } from '../../metrics/render.js';
import { MAX_RATE_LIMIT_WAIT_MS } from '../../upstream/request-spacer.js';
import { backoffOn, firstOf, waitOnRateLimit } from '../../upstream/retry.js';
import { defineCollector } from '../collector.js';
import { collectEndpoint } from '../endpoint.js';
import { TEAMS_PAGE_OFFLOAD_BYTES, decodeBody } from '../offload.js';
import { warnOnce } from '../series-cap.js';
import { lossFractionFamily, ownersTeamFamily } from './access-holders.js';
import { TEAMS_ENDPOINTS, listEndpoint } from './endpoints.js';
import { teamsFamilies, teamsUp } from './listing.js';
import { teamsTarget, type TeamsTarget } from './target.js';
import { LIST } from '../../upstream/teams/teams-page.js';

/**
 * The service answers 429 beyond its per-token rate: wait what it advertises, a bounded number of
 * times. A gateway hiccup (502-504) on one page would otherwise throw away the whole listing.
 */
const teamsRetry = firstOf(
  waitOnRateLimit({ maxRetries: 5, defaultMs: 1_000, maxWaitMs: MAX_RATE_LIMIT_WAIT_MS }),
  backoffOn([502, 503, 504], { maxRetries: 2, baseMs: 500, capMs: 2_000 }),
);

/** One job per teams target: list every team of the organization, then render. */
function teamsJobs(t: TeamsTarget, ctx: BuildContext): Job[] {
  // The service's limit is per token: targets spending the same token file at one service share a budget.
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
  const context = { target: t.name, organization: t.organization };
  // Page by page: an organization's teams rarely change, and an unchanged page is not decoded again.
  const memo = answerMemoFor('teams', t, ctx);
  const warnCap = warnOnce(
    ctx.log,
    'organization has more teams than max_teams: teams beyond it are counted without series of their own (raise max_teams to keep them)',
  );

  return [
    {
      collector: 'teams',
      target: t.name,
      schedule: t.schedule,
      run: async (signal) => [
        await collectEndpoint(
          listEndpoint,
          {
            client,
            signal,
            token: () => readSecretFile(t.token_file, 'token_file'),
            organization: t.organization,
            pageSize: t.page_size,
            maxPages: t.max_pages,
            maxBytes: t.max_listing_size,
            maxTeams: t.max_teams,
            ownersTeam: t.owners_team,
            completeAccess: t.complete_access,
            decodePage: (body, asked) =>
              decodeBody(ctx, 'teams-page', body, { body, asked }, TEAMS_PAGE_OFFLOAD_BYTES, { memo, endpoint: LIST, key: `${asked.page}/${asked.size}` }),
            requests: () => requests,
            listed: (l) => {
              if (l.untracked > 0) warnCap({ target: t.name, teams: l.kept.length + l.untracked, max_teams: t.max_teams, untracked: l.untracked });
            },
          },
          { context, turns: ctx.turns },
        ),
        { part: 'loss_fraction', group: renderGroup([lossFractionFamily], t.loss_alert_fraction, context) },
      ],
    },
  ];
}

/** The team-management service: every team of an organization, its members and its access. */
export const teamsCollector = defineCollector({
  kind: 'teams',
  target: teamsTarget,
  endpoints: TEAMS_ENDPOINTS,
  families: [teamsUp, ...teamsFamilies, ownersTeamFamily, lossFractionFamily],
  derived: [lossFractionFamily],
  state: () => undefined,
  jobs: (targets, ctx) => targets.flatMap((t) => teamsJobs(t, ctx)),
});
