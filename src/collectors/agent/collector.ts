import { defineCollector } from '../collector.js';
import { call, derive, type Plan } from '../plan.js';
import { leaderOf, autopilotEndpoint } from './autopilot.js';
import { agentCall, type AgentCall } from './call.js';
import { expectedServersFamily } from './expected-servers.js';
import { deploymentShortfallFamily, deploymentsEndpoint } from './deployments.js';
import { deploymentShortfalls } from './deployment-tally.js';
import { evaluationsEndpoint } from './evaluations.js';
import { healthEndpoint } from './health.js';
import { JobFailures } from './job-failures.js';
import { jobsEndpoint } from './jobs.js';
import { hostEndpoint } from './host.js';
import { LeaderChanges, leaderChangesFamily } from './leader-changes.js';
import { licenseEndpoint } from './license.js';
import { membersEndpoint } from './members.js';
import { nodesEndpoint } from './nodes.js';
import { selfEndpoint } from './self.js';
import { serversEndpoint } from './servers.js';
import { agentTarget, type AgentTarget } from './target.js';
import { tokenEndpoint } from './token.js';

type T = AgentTarget;
type C = AgentCall;

const autopilot = call(autopilotEndpoint);

/**
 * Every endpoint the agent switches on, fetched concurrently, one part each, so a failing endpoint
 * fails only its own series (health always polled, without the token).
 */
export const agentPlan: Plan<T, C> = {
  job: 'scheduler_agent',
  schedule: { of: (t) => t.schedule, key: 'schedule' },
  steps: [
    derive({ name: 'expected', families: [expectedServersFamily], value: (t: T) => t.expected_servers }),
    call(healthEndpoint),
    // Without a token file vigil calls as the anonymous token, which has no expiry to ask about. Its
    // part before the others': theirs say more.
    call(tokenEndpoint, { on: { test: (t: T) => t.token_file !== undefined, says: 'with a token_file' } }),
    call(membersEndpoint),
    call(serversEndpoint),
    call(selfEndpoint),
    call(hostEndpoint),
    autopilot,
    call(licenseEndpoint),
    derive({
      name: 'leader_changes',
      after: [autopilot],
      families: [leaderChangesFamily],
      value: (t: T, e, c: C) => {
        const health = e.of(autopilot)[0]?.value;
        return c.leaders.record(t.name, health === undefined ? undefined : leaderOf(health));
      },
    }),
  ],
};

/** The node listing on its own schedule: its runs, failures and durations are told apart from the agent's. */
export const nodesPlan: Plan<T, C> = {
  job: 'scheduler_nodes',
  schedule: { of: (t) => t.nodes_schedule, key: 'nodes_schedule' },
  steps: [call(nodesEndpoint)],
};

const jobs = call(jobsEndpoint);
const deployments = call(deploymentsEndpoint);

/**
 * The region's workload on its own schedule (`workload.schedule`): the jobs with their allocations'
 * summaries, the evaluations that wait and the deployments, each behind its switch; a failed
 * deployment's shortfall is read against the jobs listing of the same run.
 */
export const workloadPlan: Plan<T, C> = {
  job: 'scheduler_workload',
  schedule: { of: (t) => t.workload.schedule, key: 'workload.schedule' },
  steps: [
    jobs,
    call(evaluationsEndpoint),
    deployments,
    derive({
      name: 'deployment_shortfall',
      after: [jobs, deployments],
      families: [deploymentShortfallFamily],
      value: (_t: T, e) => {
        const [j] = e.of(jobs);
        const [d] = e.of(deployments);
        return j?.value && d?.value ? deploymentShortfalls(d.value, j.value.tracks) : [];
      },
    }),
  ],
};

/** What the agent collector keeps across runs and reloads, per target. */
export interface AgentState {
  readonly leaders: LeaderChanges;
  readonly jobFailures: JobFailures;
}

/**
 * The cluster agent: its health (always), and the gossip members, known servers, self stats, host,
 * autopilot health, Enterprise licence and the region's client nodes each switched on; its state counts the leader
 * changes autopilot names, across reloads.
 */
export const agentCollector = defineCollector({
  kind: 'agents',
  target: agentTarget,
  plans: [agentPlan, nodesPlan, workloadPlan],
  call: (t, ctx, state: AgentState) => agentCall(t, ctx, state),
  state: (): AgentState => ({ leaders: new LeaderChanges(), jobFailures: new JobFailures() }),
  settle: (state, targets) => {
    const names = new Set(targets.map((t) => t.name));
    state.leaders.keep(names);
    state.jobFailures.keep(names);
  },
});
