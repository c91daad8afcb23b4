import type { VigilDashboard } from './common.js';

const T = 'target=~"$target"';
/** Each region once, whichever of its agents report it: the region comes from the agents' identity. */
const byRegion = (expr: string) => `max by (region) (${expr} * on (job, instance, target) group_left (region) scheduler_agent_info{${T}})`;

/** The row of the agents' dashboard on each region's servers as autopilot reports them. */
export function autopilotRow(d: VigilDashboard): VigilDashboard {
  return d
    .row('Server fault tolerance (autopilot)')
    .timeseries({
      title: 'Failure tolerance and voters per region',
      description:
        'Voting servers a region could lose without losing its quorum, and its voters, from /v1/operator/autopilot/health (needs operator:read); SchedulerAgentAutopilotNoFailureTolerance pages at 0 with more than one voter.',
      unit: 'short',
      queries: [
        { expr: byRegion(`scheduler_agent_autopilot_failure_tolerance{${T}}`), legend: '{{region}} tolerance' },
        { expr: byRegion(`scheduler_agent_autopilot_voters{${T}}`), legend: '{{region}} voters' },
      ],
    })
    .table({
      title: 'Unhealthy servers',
      description:
        'Servers autopilot finds unhealthy (out of contact, trailing the log, or not alive in gossip); SchedulerAgentAutopilotServerUnhealthy warns after 5m.',
      unit: 'none',
      mayBeEmpty: true,
      queries: [{ expr: `scheduler_agent_autopilot_server_healthy{${T}} == 0` }],
    })
    .timeseries({
      title: 'Server index lag',
      description: "Raft log entries each server trails the leader's last index by; autopilot calls a server unhealthy past 250 (MaxTrailingLogs).",
      unit: 'short',
      queries: [{ expr: `max by (server) (scheduler_agent_autopilot_server_index_lag{${T}})`, legend: '{{server}}' }],
    })
    .timeseries({
      title: 'Leader changes',
      description:
        'Changes of the raft leader autopilot names, counted by vigil between polls, per interval; SchedulerAgentLeaderFlapping warns above 3 in an hour.',
      unit: 'short',
      queries: [{ expr: byRegion(`increase(scheduler_agent_autopilot_leader_changes_total{${T}}[$__rate_interval])`), legend: '{{region}}' }],
    });
}
