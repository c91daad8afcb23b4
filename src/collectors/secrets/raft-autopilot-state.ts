import { z } from 'zod';
import { family, single, stateSet, upFamily, type Family, type Sample } from '../../metrics/family.js';
import { UpstreamError } from '../../upstream/errors.js';
import { boolish, goDurationSeconds, lenient, numberish } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';
import type { SecretsAuth } from './auth.js';
import { enveloped, refusedOrMissing, snakeKeys } from './node-answers.js';

/**
 * `GET /v1/sys/storage/raft/autopilot/state` (1.7+, integrated storage only): the raft cluster as
 * autopilot sees it. Needs read on the path, in the root namespace. Answered at the top level in the
 * documentation, inside `data` by the servers, in CamelCase by 1.7 and 1.8: all read alike. `servers`
 * is essential (the answer is about them); every other field costs only its own series.
 */
const text = lenient(z.string());
const count = lenient(numberish);
const server = z.preprocess(
  snakeKeys,
  z.object({
    id: text,
    name: text,
    address: text,
    node_status: text,
    last_contact: z
      .unknown()
      .optional()
      .transform((v) => goDurationSeconds(v === '' ? undefined : v)),
    last_term: count,
    last_index: count,
    healthy: lenient(boolish),
    status: text,
    version: text,
    node_type: text,
  }),
);

const autopilotState = enveloped(
  'servers',
  z.object({
    healthy: lenient(boolish),
    failure_tolerance: count,
    optimistic_failure_tolerance: count,
    leader: text,
    voters: lenient(z.array(z.string())),
    servers: z.record(z.string(), server),
  }),
);
/** Autopilot not running yet (a cluster still forming) answers with no body. */
export const autopilotStateResponse = autopilotState.nullish();
export type AutopilotState = z.output<typeof autopilotState>;
export type RaftServer = AutopilotState['servers'][string];

/** The raft cluster as autopilot sees it (sys/storage/raft/autopilot/state): pure mapping to samples. */

const FROM_AUTOPILOT =
  "from sys/storage/raft/autopilot/state as the cluster's configured address answers it; no series at all without integrated storage or permission";
export const RAFT_STATUSES = ['leader', 'voter', 'non-voter', 'staging', 'unknown'] as const;

const servers = (s: AutopilotState): Array<[string, RaftServer]> => Object.entries(s.servers).map(([key, v]) => [v.id ?? key, v]);
const perServer = (value: (v: RaftServer, s: AutopilotState) => number | boolean | undefined) => (s: AutopilotState) =>
  servers(s).flatMap(([server, v]): Sample[] => {
    const x = value(v, s);
    return x === undefined ? [] : [{ labels: { server }, value: Number(x) }];
  });

/** The leader's last index: the server `leader` names, else the one whose status says leader. */
function leaderIndex(s: AutopilotState): number | undefined {
  const all = servers(s);
  const leader = all.find(([id]) => id === s.leader) ?? all.find(([, v]) => v.status === 'leader');
  return leader?.[1].last_index;
}

/** Voters: the answer's list, else the servers whose status is leader or voter. */
function voters(s: AutopilotState): number {
  return s.voters?.length ?? servers(s).filter(([, v]) => v.status === 'leader' || v.status === 'voter').length;
}

export const autopilotUp = upFamily({
  name: 'secrets_raft_autopilot_up',
  help: "1 when the last autopilot state poll of the cluster's configured address succeeded and parsed, else 0; absent when not applicable (no integrated storage, or the token lacks read on sys/storage/raft/autopilot/state).",
  section: 'secrets',
  labels: ['target'],
});

const clusterGauge = (name: string, help: string, value: (s: AutopilotState) => number | boolean | undefined): Family<AutopilotState> =>
  family<AutopilotState>({ name, help: `${help}; ${FROM_AUTOPILOT}.`, type: 'gauge', section: 'secrets', labels: ['target'], samples: single(value) });
const serverGauge = (name: string, help: string, value: (v: RaftServer, s: AutopilotState) => number | boolean | undefined): Family<AutopilotState> =>
  family<AutopilotState>({
    name,
    help: `${help}; ${FROM_AUTOPILOT}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'server'],
    samples: perServer(value),
  });

export const autopilotFamilies: readonly Family<AutopilotState>[] = [
  clusterGauge('secrets_raft_autopilot_healthy', '1 when autopilot reports the raft cluster healthy, else 0', (s) => s.healthy),
  clusterGauge('secrets_raft_failure_tolerance', 'Voters the raft cluster can lose and keep its quorum (failure_tolerance)', (s) => s.failure_tolerance),
  clusterGauge(
    'secrets_raft_optimistic_failure_tolerance',
    'Voters, non-voters included, the raft cluster could lose and keep its quorum once autopilot promoted the non-voters (optimistic_failure_tolerance, Enterprise)',
    (s) => s.optimistic_failure_tolerance,
  ),
  clusterGauge('secrets_raft_voters', 'Voting servers of the raft cluster', voters),
  serverGauge('secrets_raft_server_healthy', '1 when autopilot reports the raft server healthy, else 0', (v) => v.healthy),
  family<AutopilotState>({
    name: 'secrets_raft_server_status',
    help: `1 for the raft server's status (leader, voter, non-voter, staging; unknown for any other), 0 for the others; ${FROM_AUTOPILOT}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'server', 'status'],
    samples: (s) =>
      servers(s).flatMap(([server, v]) =>
        v.status === undefined
          ? []
          : stateSet('status', RAFT_STATUSES, (RAFT_STATUSES as readonly string[]).includes(v.status) ? v.status : 'unknown').map((x) => ({
              ...x,
              labels: { ...x.labels, server },
            })),
      ),
  }),
  serverGauge(
    'secrets_raft_server_last_contact_seconds',
    'Time since the raft server last heard from the leader (last_contact), in seconds',
    (v) => v.last_contact,
  ),
  serverGauge('secrets_raft_server_index_lag', "Raft log entries the server is behind the leader (the leader's last_index minus its own)", (v, s) => {
    const lead = leaderIndex(s);
    return lead === undefined || v.last_index === undefined ? undefined : Math.max(0, lead - v.last_index);
  }),
];

/** The raft cluster as autopilot sees it: health, failure tolerance, voters, each server. */
export const raftAutopilotStateEndpoint = endpoint({
  id: 'secrets/raft-autopilot-state',
  method: 'GET',
  path: '/v1/sys/storage/raft/autopilot/state',
  schema: autopilotStateResponse,
  send: (c: SecretsAuth) => c.rooted(),
  read: async (get): Promise<AutopilotState> => {
    const state = (await get()).value;
    // Nothing to say yet, which is not a failure: read as "not applicable", as a 404 is.
    if (state === undefined || state === null) throw new UpstreamError('http_4xx', 'secrets/raft-autopilot-state: no autopilot state', 404);
    return state;
  },
  needs: 'read on sys/storage/raft/autopilot/state (root namespace)',
  up: autopilotUp,
  families: autopilotFamilies,
  notApplicable: {
    test: (err) => refusedOrMissing(err) || ((err.status === 400 || err.status === 500) && /raft|autopilot|integrated storage/i.test(err.message)),
    means:
      'no integrated storage (400 "raft storage is not in use", 404), a DR secondary (400 "path disabled"), autopilot not running yet (no body), or the token may not read the path (403)',
  },
});
