import { z } from 'zod';
import { family, single, stateSet, type Family, type Sample } from '../../metrics/family.js';
import { capped } from '../../metrics/series-cap.js';
import { boolish, goDurationSeconds, lenient, numberish } from '../../upstream/schema-helpers.js';
import type { AgentAuth } from './auth.js';
import { optional } from './optional.js';

/**
 * `GET /v1/operator/autopilot/health` (operator:read): the servers' raft health as the leader's
 * autopilot sees it. Every field is lenient: one missing or misread costs only the series it feeds.
 * A server entry that is no object is dropped alone; one without a name or id cannot be told apart
 * from the others and is dropped too (its absence never reads as a healthy server).
 */
const server = z
  .object({
    ID: lenient(z.string()),
    Name: lenient(z.string()),
    Address: lenient(z.string()),
    SerfStatus: lenient(z.string()),
    Version: lenient(z.string()),
    Leader: lenient(boolish),
    LastContact: z.unknown().optional().transform(goDurationSeconds),
    LastTerm: lenient(numberish),
    LastIndex: lenient(numberish),
    Healthy: lenient(boolish),
    Voter: lenient(boolish),
  })
  .transform((s) => ({ ...s, key: s.Name || s.ID }));

export type AutopilotServer = z.output<typeof server> & { key: string };

/**
 * The servers read, whether every entry was (a count from a list with a dropped entry would
 * undercount), the voters, and the leader's last index (else the highest): counted over all of them.
 */
const servers = lenient(z.array(z.unknown())).transform((list) => {
  if (list === undefined) return undefined;
  const read = list.flatMap((v) => {
    const r = server.safeParse(v);
    return r.success && r.data.key ? [r.data as AutopilotServer] : [];
  });
  const complete = read.length === list.length;
  const voters = complete && read.every((s) => s.Voter !== undefined) ? read.filter((s) => s.Voter).length : undefined;
  const indices = read.flatMap((s) => (s.LastIndex === undefined ? [] : [s.LastIndex]));
  const head = read.find((s) => s.Leader === true && s.LastIndex !== undefined)?.LastIndex ?? (indices.length ? Math.max(...indices) : undefined);
  return { list: read, complete, voters, head };
});

/** Newer servers also name the leader and the voters at the top (`Leader`, `Voters`): read when present. */
export const autopilotHealthResponse = z.object({
  Healthy: lenient(boolish),
  FailureTolerance: lenient(numberish),
  Leader: lenient(z.string()),
  Voters: lenient(z.array(z.string())),
  Servers: servers,
});

export type AutopilotHealth = z.output<typeof autopilotHealthResponse>;

/**
 * `/operator/autopilot/health`: the region's servers as its leader's autopilot sees them. Every
 * agent of a region that answers reports the same servers, so the rules aggregate by region.
 */

const FROM = 'from a scheduled poll of /v1/operator/autopilot/health';
const SERF_STATUSES = ['alive', 'leaving', 'left', 'failed'] as const;
const CAPPED = 'at most max_raft_servers servers, the leader and the unhealthy ones first';

/**
 * The answer with at most `max` servers, the leader and the unhealthy ones first (regions run 3, 5
 * or 7; an answer listing thousands is no region's raft), and how many were left out. The voters and
 * the leader's index were counted over all of them.
 */
export function boundServers(h: AutopilotHealth, max: number): AutopilotHealth & { readonly dropped: number } {
  if (!h.Servers) return { ...h, dropped: 0 };
  const list = h.Servers.list;
  // Offered first, the leader is kept however many unhealthy servers come before it in the answer.
  const leaders = list.length > max ? list.filter((s) => s.Leader === true) : [];
  const offered = leaders.length ? [...leaders, ...list.filter((s) => s.Leader !== true)] : list;
  const { kept, dropped } = capped(offered, max, (s) => s.Leader === true || s.Healthy !== true);
  return { ...h, Servers: { ...h.Servers, list: [...kept] }, dropped };
}

const serversOf = (h: AutopilotHealth): readonly AutopilotServer[] => h.Servers?.list ?? [];

/** The voters: the answer's own list when it has one, else counted from servers that all say whether they vote. */
export const voterCount = (h: AutopilotHealth): number | undefined => h.Voters?.length ?? h.Servers?.voters;

/** The leader's id or name: the answer's `Leader` when present, else the one server that says it leads. */
export function leaderOf(h: AutopilotHealth): string | undefined {
  if (h.Leader) return h.Leader;
  const leaders = serversOf(h).filter((s) => s.Leader === true);
  return leaders.length === 1 ? (leaders[0]?.ID ?? leaders[0]?.key) : undefined;
}

/** How far each server's last index is behind the leader's (else the highest reported). */
function indexLag(h: AutopilotHealth): Sample[] {
  const head = h.Servers?.head;
  if (head === undefined) return [];
  return serversOf(h).flatMap((s) => (s.LastIndex === undefined ? [] : [{ labels: { server: s.key }, value: Math.max(0, head - s.LastIndex) }]));
}

const perServer = (value: (s: AutopilotServer) => number | boolean | undefined) => (h: AutopilotHealth) =>
  serversOf(h).flatMap((s) => {
    const v = value(s);
    return v === undefined ? [] : [{ labels: { server: s.key }, value: Number(v) }];
  });

const serverGauge = (name: string, help: string, value: (s: AutopilotServer) => number | boolean | undefined): Family<AutopilotHealth> =>
  family<AutopilotHealth>({
    name,
    help: `${help}; ${CAPPED}; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'server'],
    samples: perServer(value),
  });

export const autopilotFamilies: readonly Family<AutopilotHealth>[] = [
  family<AutopilotHealth>({
    name: 'scheduler_agent_autopilot_healthy',
    help: `Whether autopilot reports every server of the agent's region healthy (1) or not (0); ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((h) => h.Healthy),
  }),
  family<AutopilotHealth>({
    name: 'scheduler_agent_autopilot_failure_tolerance',
    help: `Servers the region's raft cluster could lose without losing its quorum (healthy voters beyond the quorum), as autopilot reports it; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((h) => h.FailureTolerance),
  }),
  family<AutopilotHealth>({
    name: 'scheduler_agent_autopilot_voters',
    help: `Voting servers of the region's raft cluster (the answer's Voters, else the servers marked Voter; absent when a server does not say); ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single(voterCount),
  }),
  serverGauge(
    'scheduler_agent_autopilot_server_healthy',
    'Whether autopilot finds this server healthy under its configuration (1) or not (0)',
    (s) => s.Healthy,
  ),
  serverGauge('scheduler_agent_autopilot_server_voter', 'Whether this server is a voting member of the raft cluster (1) or not (0)', (s) => s.Voter),
  serverGauge('scheduler_agent_autopilot_server_leader', 'Whether this server is the raft leader (1) or not (0)', (s) => s.Leader),
  serverGauge(
    'scheduler_agent_autopilot_server_last_contact_seconds',
    "Time since this server's last contact with the leader (0 on the leader)",
    (s) => s.LastContact,
  ),
  family<AutopilotHealth>({
    name: 'scheduler_agent_autopilot_server_index_lag',
    help: `Raft log entries this server's last index is behind the leader's (behind the highest reported when no leader is named); ${CAPPED}; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'server'],
    samples: indexLag,
  }),
  family<AutopilotHealth>({
    name: 'scheduler_agent_autopilot_server_status',
    help: `Gossip (serf) status of each server, one series per status (alive, leaving, left, failed, plus its own if other), 1 for the current one; ${CAPPED}; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'server', 'status'],
    samples: (h) =>
      serversOf(h).flatMap((s) =>
        s.SerfStatus === undefined
          ? []
          : stateSet('status', SERF_STATUSES, s.SerfStatus).map((x) => ({ labels: { server: s.key, ...x.labels }, value: x.value })),
      ),
  }),
  family<AutopilotHealth & { readonly dropped?: number }>({
    name: 'scheduler_agent_autopilot_server_series_dropped',
    help: `Servers the answer listed beyond max_raft_servers, left without scheduler_agent_autopilot_server_* series (voters and failure tolerance count them all); ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((h) => h.dropped),
  }),
  family<AutopilotHealth>({
    name: 'scheduler_agent_autopilot_server_info',
    help: `Identity of each server autopilot reports (always 1): raft id, address and version; ${CAPPED}; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'server', 'server_id', 'address', 'version'],
    samples: (h) =>
      serversOf(h).map((s) => ({ labels: { server: s.key, server_id: s.ID ?? '', address: s.Address ?? '', version: s.Version ?? '' }, value: 1 })),
  }),
];

/**
 * Autopilot health where vigil may not or cannot read it: 403 (the token lacks operator:read), 501, or
 * a client that reaches no server to forward to. A server without a leader (500 "No cluster leader")
 * is a failure, not this.
 */
const autopilotNotApplicable = (err: { status?: number; message: string }): boolean =>
  err.status === 403 || err.status === 501 || (err.status === 500 && /no (known )?servers|not a server/i.test(err.message));

/** The region's raft health as its leader's autopilot sees it; the leader it names also feeds the count of leader changes. */
export const autopilotEndpoint = optional('autopilot', {
  path: '/v1/operator/autopilot/health',
  schema: autopilotHealthResponse,
  // A server answers 429 with the same body when the cluster is unhealthy, which is data.
  dataStatuses: [429],
  read: async (get, c: AgentAuth & { readonly target: { readonly max_raft_servers: number } }) => boundServers((await get()).value, c.target.max_raft_servers),
  needs: 'operator:read',
  bounds: [{ items: 'servers', key: 'max_raft_servers', dropped: 'scheduler_agent_autopilot_server_series_dropped' }],
  families: autopilotFamilies,
  notApplicable: { test: autopilotNotApplicable, means: 'the token lacks operator:read (403), or the agent reaches no server (501, 500 "no servers")' },
  default: true,
  help: "the region's server fault tolerance, voters and per-server raft health from autopilot (operator:read; not applicable without it)",
});
