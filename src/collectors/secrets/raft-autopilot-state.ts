import { family, single, stateSet, upFamily, type Family, type Sample } from '../../metrics/family.js';
import { UpstreamError } from '../../upstream/errors.js';
import { endpoint, offloaded } from '../endpoint.js';
import type { SecretsAuth } from './auth.js';
import { refusedOrMissing } from './node-answers.js';
import { autopilotStateResponse, decodeAutopilotState, type AutopilotInput, type AutopilotView, type RaftServer } from './raft-autopilot-answer.js';

export { autopilotStateResponse, type AutopilotState, type AutopilotView, type RaftServer } from './raft-autopilot-answer.js';

/** The raft cluster as autopilot sees it (sys/storage/raft/autopilot/state): pure mapping to samples. */

const FROM_AUTOPILOT =
  "from sys/storage/raft/autopilot/state as the cluster's configured address answers it; no series at all without integrated storage or permission";
export const RAFT_STATUSES = ['leader', 'voter', 'non-voter', 'staging', 'unknown'] as const;

const servers = (s: AutopilotView): Array<[string, RaftServer]> => Object.entries(s.servers);
const perServer = (value: (v: RaftServer, s: AutopilotView) => number | boolean | undefined) => (s: AutopilotView) =>
  servers(s).flatMap(([server, v]): Sample[] => {
    const x = value(v, s);
    return x === undefined ? [] : [{ labels: { server }, value: Number(x) }];
  });

export const autopilotUp = upFamily({
  name: 'secrets_raft_autopilot_up',
  help: "1 when the last autopilot state poll of the cluster's configured address succeeded and parsed, else 0; absent when not applicable (no integrated storage, or the token lacks read on sys/storage/raft/autopilot/state).",
  section: 'secrets',
  labels: ['target'],
});

const clusterGauge = (name: string, help: string, value: (s: AutopilotView) => number | boolean | undefined): Family<AutopilotView> =>
  family<AutopilotView>({ name, help: `${help}; ${FROM_AUTOPILOT}.`, type: 'gauge', section: 'secrets', labels: ['target'], samples: single(value) });
const serverGauge = (name: string, help: string, value: (v: RaftServer, s: AutopilotView) => number | boolean | undefined): Family<AutopilotView> =>
  family<AutopilotView>({
    name,
    help: `${help}; ${FROM_AUTOPILOT}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'server'],
    samples: perServer(value),
  });

export const autopilotFamilies: readonly Family<AutopilotView>[] = [
  clusterGauge('secrets_raft_autopilot_healthy', '1 when autopilot reports the raft cluster healthy, else 0', (s) => s.healthy),
  clusterGauge('secrets_raft_failure_tolerance', 'Voters the raft cluster can lose and keep its quorum (failure_tolerance)', (s) => s.failure_tolerance),
  clusterGauge(
    'secrets_raft_optimistic_failure_tolerance',
    'Voters, non-voters included, the raft cluster could lose and keep its quorum once autopilot promoted the non-voters (optimistic_failure_tolerance, Enterprise)',
    (s) => s.optimistic_failure_tolerance,
  ),
  clusterGauge('secrets_raft_voters', 'Voting servers of the raft cluster', (s) => s.voters),
  serverGauge('secrets_raft_server_healthy', '1 when autopilot reports the raft server healthy, else 0', (v) => v.healthy),
  family<AutopilotView>({
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
  serverGauge('secrets_raft_server_index_lag', "Raft log entries the server is behind the leader (the leader's last_index minus its own)", (v, s) =>
    s.leaderIndex === undefined || v.last_index === undefined ? undefined : Math.max(0, s.leaderIndex - v.last_index),
  ),
  clusterGauge(
    'secrets_raft_server_series_dropped',
    'Raft servers the answer listed beyond nodes.max_raft_servers, left without secrets_raft_server_* series (the leader and the unhealthy ones are kept first; voters and failure tolerance count them all)',
    (s) => s.dropped,
  ),
];

/**
 * An answer is decoded on a decoding thread from this size: a cluster's few servers are a few kB,
 * read in the collection thread; thousands of them (a hostile or broken answer) never hold it up.
 */
export const AUTOPILOT_OFFLOAD_BYTES = 64 * 1024;

/** What the call reads of its target: how many servers get series. */
interface AutopilotCall extends SecretsAuth {
  readonly target: { readonly nodes: { readonly max_raft_servers: number } };
}

/** The raft cluster as autopilot sees it: health, failure tolerance, voters, each server. */
export const raftAutopilotStateEndpoint = endpoint({
  id: 'secrets/raft-autopilot-state',
  method: 'GET',
  path: '/v1/sys/storage/raft/autopilot/state',
  schema: autopilotStateResponse,
  send: (c: AutopilotCall) => c.rooted(),
  offload: offloaded({
    task: decodeAutopilotState,
    from: AUTOPILOT_OFFLOAD_BYTES,
    input: (body, c: AutopilotCall): AutopilotInput => ({ body, max: c.target.nodes.max_raft_servers }),
  }),
  read: async (get): Promise<AutopilotView> => {
    const state = (await get()).value;
    // Nothing to say yet, which is not a failure: read as "not applicable", as a 404 is.
    if (state === undefined || state === null) throw new UpstreamError('http_4xx', 'secrets/raft-autopilot-state: no autopilot state', 404);
    return state;
  },
  needs: 'read on sys/storage/raft/autopilot/state (root namespace)',
  bounds: [{ items: 'raft servers', key: 'nodes.max_raft_servers', dropped: 'secrets_raft_server_series_dropped' }],
  up: autopilotUp,
  families: autopilotFamilies,
  notApplicable: {
    test: (err) => refusedOrMissing(err) || ((err.status === 400 || err.status === 500) && /raft|autopilot|integrated storage/i.test(err.message)),
    means:
      'no integrated storage (400 "raft storage is not in use", 404), a DR secondary (400 "path disabled"), autopilot not running yet (no body), or the token may not read the path (403)',
  },
});
