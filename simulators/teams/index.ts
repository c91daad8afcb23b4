import { applyFaults } from '../common/faults.js';
import { IDLE_KEEP_ALIVE_MS, listen, route, type ServeTls } from '../common/http.js';
import { handleAdmin } from './admin-api.js';
import { handleApi } from './api.js';
import { createContext } from './context.js';
import { parseScenario, type TeamsScenario } from './scenario.js';
import { handleTelemetry, isTelemetryPath } from './telemetry.js';
import type { TeamsProfile } from './profiles.js';
export { TEAMS_PROFILES, type TeamsProfile } from './profiles.js';

export { demoTeamsScenario, parseScenario } from './scenario.js';
export type { OrganizationSpec, TeamsScenario } from './scenario.js';

export interface TeamsSimulator {
  /**
   * Base URL; the API is at url + '/api/v2/...', the admin API at url + '/_sim/...', the metrics
   * service at url + '/telemetry/hcpt/<organization id>/metrics' (ids and tokens: GET /_sim/telemetry).
   */
  readonly url: string;
  /** Organization token: acts as owner, sees all teams. */
  ownerToken(org: string): string;
  /** Token of a user who is a member of `team` only. */
  memberToken(org: string, team: string): string;
  /** API requests answered, every organization's. */
  requests(): number;
  close(): Promise<void>;
}

/** One listener for every organization, like the hosted service. */
export async function startTeamsSimulator(
  scenario: TeamsScenario,
  opts: { host?: string; port?: number; tls?: ServeTls; profile?: TeamsProfile } = {},
): Promise<TeamsSimulator> {
  const ctx = createContext(parseScenario(scenario), opts.profile);
  const server = await listen(
    async (req, res) => {
      const request = route(req);
      if (request.path === '/_sim' || request.path.startsWith('/_sim/')) {
        return handleAdmin(ctx, req, res, request.method, request.path);
      }
      // The metrics service is a service of its own: the API's faults and rate limit are not its.
      if (isTelemetryPath(request.path)) return handleTelemetry(ctx.telemetry, req, res, request.path);
      ctx.requests.set(request.path, (ctx.requests.get(request.path) ?? 0) + 1);
      if (await applyFaults(ctx.faults, res)) return;
      return handleApi(ctx, req, res, request);
    },
    opts.port ?? 0,
    opts.host ?? '127.0.0.1',
    opts.tls,
    IDLE_KEEP_ALIVE_MS.teams,
  );
  return {
    url: server.url,
    requests: () => server.requests(),
    ownerToken(org) {
      const found = ctx.store.organization(org);
      if (!found) throw new Error(`no organization ${org}`);
      return found.ownerToken;
    },
    memberToken: (org, team) => ctx.store.memberToken(org, team),
    close: () => server.close(),
  };
}
