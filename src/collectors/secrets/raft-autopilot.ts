import { family, single, stateSet, upFamily, type Family, type Sample } from '../../metrics/family.js';
import type { AutopilotState, RaftServer } from '../../upstream/secrets/autopilot-state.js';

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
