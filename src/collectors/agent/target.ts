import { z } from 'zod';
import { keptAtMost, schedule, targetFields } from '../../config-fields/fields.js';
import { EVERY_15_SECONDS } from '../../config-fields/schedule.js';
import { workloadField } from './workload-target.js';

/**
 * A cluster agent (server, client or both). `/agent/health` is always polled; each optional endpoint
 * has its own switch (`members`, `servers`, `self`, `host`, `autopilot`, `license`, `nodes`, `token`, `jobs`, `evaluations`, `deployments`), declared with the endpoint and added by `defineCollector`.
 */
export const agentTarget = z.strictObject({
  ...targetFields(EVERY_15_SECONDS),
  /** Per-member series (member_status, member_info) beyond this many are dropped and counted. */
  max_members: keptAtMost(20_000, 1_000_000),
  /** Servers of the autopilot health with series of their own (a region runs 3 to 7). */
  max_raft_servers: keptAtMost(100, 10_000, 1),
  /** Disks of the host answer with series of their own. */
  max_host_disks: keptAtMost(100, 10_000, 1),
  /** The node listing runs on its own schedule: a fleet's pages cost more than the agent's own answers. */
  nodes_schedule: schedule('*/30 * * * * *'),
  /** per_page of each page of /v1/nodes: a page holding more nodes fails the listing. */
  node_page_size: z.number().int().min(1).max(5_000).default(500),
  /** Pages of one listing: beyond it the listing fails (max_node_pages x node_page_size nodes at most). */
  max_node_pages: z.number().int().min(1).default(200),
  /** Per-node series (node_status, node_draining) beyond this many nodes not ready or draining are dropped and counted. */
  max_nodes: keptAtMost(1_000, 100_000),
  /** Combinations of datacenter, pool, class, eligibility and drain counted in scheduler_nodes (4 series each); the nodes of the others are counted as dropped. */
  max_node_groups: keptAtMost(1_000, 100_000),
  /** Servers this agent should know (a client) or its raft cluster should have (a server); exported for SchedulerAgentServersBelowExpected. */
  expected_servers: z.number().int().min(1).optional(),
  /** The region's jobs, evaluations and deployments: paging, bounds and schedule (the listings' switches are `jobs`, `evaluations`, `deployments`). */
  workload: workloadField,
});
export type AgentTarget = z.output<typeof agentTarget>;
