import { autopilotRow } from './agents-autopilot.js';
import { workloadRow } from './agents-workload.js';
import { dashboard, type DashboardSettings } from './common.js';

const T = 'target=~"$target"';

export function agentsDashboard(settings: DashboardSettings) {
  const d = dashboard(
    'scheduler',
    'Cluster agents as vigil polls them: health per role, gossip members, known servers, raft, server fault tolerance, client nodes and host disks.',
    'scheduler_agent_up',
    settings,
  )
    .row('Overview')
    .stat({
      title: 'Agents answering',
      description: 'Share of agents whose health endpoint answered with a readable body (scheduler_agent_up).',
      unit: 'percentunit',
      queries: [{ expr: `avg(scheduler_agent_up{${T}})` }],
    })
    .stat({
      title: 'Unhealthy roles',
      description: 'Server or client parts of agents that report themselves unhealthy.',
      unit: 'short',
      queries: [{ expr: `count(scheduler_agent_health_ok{${T}} == 0) or vector(0)` }],
    })
    .stat({
      title: 'Failed members',
      description: 'Gossip members in state failed, as the watched servers see them.',
      unit: 'short',
      queries: [{ expr: `sum(scheduler_agent_members{${T},status="failed"}) or vector(0)` }],
    })
    .stat({
      title: 'Raft leaders',
      description: 'Watched servers that report themselves raft leader (1 per region is healthy).',
      unit: 'short',
      queries: [{ expr: `sum(scheduler_agent_raft_leader{${T}}) or vector(0)` }],
    })
    .row('Health')
    .timeseries({
      title: 'Health per role',
      description: 'ok of /agent/health per agent and role; 0 means unhealthy (the agent answers 500).',
      unit: 'bool',
      queries: [{ expr: `scheduler_agent_health_ok{${T}}`, legend: '{{target}} {{role}}' }],
    })
    .table({ title: 'Agents', description: 'Identity of each agent from /agent/self.', unit: 'none', queries: [{ expr: `scheduler_agent_info{${T}}` }] })
    .row('Gossip members')
    .timeseries({
      title: 'Members by status',
      description: 'Gossip members per status as each server agent sees them.',
      unit: 'short',
      queries: [{ expr: `scheduler_agent_members{${T}}`, legend: '{{target}} {{status}}' }],
    })
    .table({
      title: 'Members not alive',
      description: 'Members whose status is anything but alive.',
      unit: 'none',
      mayBeEmpty: true,
      queries: [{ expr: `scheduler_agent_member_status{${T},status!="alive"} == 1` }],
    })
    .timeseries({
      title: 'Failed and left members (agent view)',
      description:
        "Gossip members each agent's own stats count as failed or left; SchedulerAgentGossipMembersLost warns when their sum rises by 2 or more within 15m.",
      unit: 'short',
      queries: [
        { expr: `scheduler_agent_serf_failed{${T}}`, legend: '{{target}} failed' },
        { expr: `scheduler_agent_serf_left{${T}}`, legend: '{{target}} left' },
      ],
    })
    .timeseries({
      title: 'Serf health score',
      description: 'Gossip health score of each agent (0 is best; higher means the agent struggles to keep up).',
      unit: 'short',
      queries: [{ expr: `scheduler_agent_serf_health_score{${T}}`, legend: '{{target}}' }],
    })
    .timeseries({
      title: 'Known servers',
      description: 'Servers a client agent knows; SchedulerAgentNoKnownServers fires at 0.',
      unit: 'short',
      queries: [{ expr: `scheduler_agent_known_servers{${T}}`, legend: '{{target}}' }],
    })
    .row('Raft')
    .timeseries({
      title: 'Raft leader and peers',
      description: 'Whether each server is leader, and its number of raft peers.',
      unit: 'short',
      queries: [
        { expr: `scheduler_agent_raft_leader{${T}}`, legend: '{{target}} leader' },
        { expr: `scheduler_agent_raft_peers{${T}}`, legend: '{{target}} peers' },
      ],
    })
    .timeseries({
      title: 'Raft apply rate',
      description: 'Raft log entries committed and applied per second on each server.',
      unit: 'ops',
      queries: [
        { expr: `rate(scheduler_agent_raft_commit_index{${T}}[$__rate_interval])`, legend: '{{target}} committed' },
        { expr: `rate(scheduler_agent_raft_applied_index{${T}}[$__rate_interval])`, legend: '{{target}} applied' },
      ],
    })
    .timeseries({
      title: 'Raft leader known',
      description:
        'Whether each server knows a raft leader (stats.nomad.leader_addr set); SchedulerAgentNoRaftLeader fires when no watched server of a region is or follows one.',
      unit: 'bool',
      queries: [{ expr: `scheduler_agent_raft_leader_known{${T}}`, legend: '{{target}}' }],
    })
    .timeseries({
      title: 'Raft apply backlog',
      description: 'Committed raft entries not yet applied (commit_index − applied_index); SchedulerAgentRaftApplyLagging warns above 1000 for 5m.',
      unit: 'short',
      queries: [{ expr: `scheduler_agent_raft_commit_index{${T}} - scheduler_agent_raft_applied_index{${T}}`, legend: '{{target}}' }],
    })
    .timeseries({
      title: 'Servers known vs expected',
      description: 'Servers a client knows, or raft peers plus itself on a server, against expected_servers of the target.',
      unit: 'short',
      queries: [
        { expr: `scheduler_agent_known_servers{${T}}`, legend: '{{target}} known' },
        { expr: `scheduler_agent_raft_peers{${T}} + 1`, legend: '{{target}} raft servers' },
        { expr: `scheduler_agent_expected_servers{${T}}`, legend: '{{target}} expected' },
      ],
    })
    .timeseries({
      title: 'Raft last contact',
      description: 'Time since a follower last heard its leader (absent on the leader).',
      unit: 's',
      mayBeEmpty: true,
      queries: [{ expr: `scheduler_agent_raft_last_contact_seconds{${T}}`, legend: '{{target}}' }],
    })
    .row('Client nodes')
    .timeseries({
      title: 'Nodes by status per pool',
      description:
        "Client nodes of each region's pools by status (ready, initializing, down, disconnected), from the node listing of the agents with nodes: true; the largest count across agents. SchedulerNodePoolDown pages when more than 30% of a pool's eligible nodes (3 or more) are lost for 10m.",
      unit: 'short',
      queries: [
        {
          expr: `max by (region, node_pool, status) (sum by (job, instance, target, node_pool, status) (scheduler_nodes{${T}}) * on (job, instance, target) group_left (region) scheduler_agent_info{${T}})`,
          legend: '{{region}} {{node_pool}} {{status}}',
        },
      ],
    })
    .timeseries({
      title: 'Ineligible and draining nodes per pool',
      description: 'Client nodes not eligible for new work, and nodes draining, per pool (a scale-in drains nodes and leaves them ineligible).',
      unit: 'short',
      queries: [
        {
          expr: `max by (node_pool) (sum by (job, instance, target, node_pool) (scheduler_nodes{${T},eligibility="ineligible"}))`,
          legend: '{{node_pool}} ineligible',
        },
        { expr: `max by (node_pool) (sum by (job, instance, target, node_pool) (scheduler_nodes{${T},drain="true"}))`, legend: '{{node_pool}} draining' },
      ],
    })
    .table({
      title: 'Nodes not ready',
      description: 'Client nodes that are not ready, with their status and eligibility (at most max_nodes per target, lost ones first).',
      unit: 'none',
      mayBeEmpty: true,
      queries: [{ expr: `max by (node, node_id, datacenter, node_pool, node_class, status, eligibility) (scheduler_node_status{${T}})` }],
    })
    .table({
      title: 'Nodes draining',
      description: 'Client nodes draining; SchedulerNodeDrainStuck tells of one draining for 3h.',
      unit: 'none',
      mayBeEmpty: true,
      queries: [{ expr: `max by (node, node_id, datacenter, node_pool, node_class) (scheduler_node_draining{${T}})` }],
    });
  return workloadRow(autopilotRow(d))
    .row('Clients and hosts')
    .timeseries({
      title: 'Allocations',
      description: 'Allocations running on each client agent.',
      unit: 'short',
      queries: [{ expr: `scheduler_agent_client_allocations{${T}}`, legend: '{{target}}' }],
    })
    .timeseries({
      title: 'Goroutines',
      description: 'Goroutines of each agent process.',
      unit: 'short',
      queries: [{ expr: `scheduler_agent_runtime_goroutines{${T}}`, legend: '{{target}}' }],
    })
    .timeseries({
      title: 'Disk used',
      description: 'Used share of each mount of the agent host (needs host: true on the target); SchedulerAgentHostDiskAlmostFull warns above 90%.',
      unit: 'percentunit',
      queries: [{ expr: `scheduler_agent_host_disk_used_bytes{${T}} / scheduler_agent_host_disk_size_bytes{${T}}`, legend: '{{target}} {{mount}}' }],
    })
    .timeseries({
      title: 'Disk free in 24h (predicted)',
      description:
        'Free space each mount would have in 24 hours at the growth of the last 6 hours; SchedulerAgentHostDiskFillingUp warns below 0 on a disk over 60% full.',
      unit: 'bytes',
      queries: [
        {
          expr: `scheduler_agent_host_disk_size_bytes{${T}} - predict_linear(scheduler_agent_host_disk_used_bytes{${T}}[6h], 24 * 3600)`,
          legend: '{{target}} {{mount}}',
        },
      ],
    })
    .row("vigil's access")
    .timeseries({
      title: 'ACL token expires in',
      description:
        'Time left before the ACL token vigil polls each agent with expires (/v1/acl/token/self); empty for a token without expiry or a cluster without ACLs. VigilSchedulerTokenExpiresSoon warns below 7 days, per region.',
      unit: 's',
      mayBeEmpty: true,
      queries: [{ expr: `scheduler_agent_token_expiry_timestamp_seconds{${T}} - time()`, legend: '{{target}}' }],
    });
}
