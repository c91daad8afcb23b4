import { clientFor, type BuildContext } from '../../jobs/context.js';
import type { Job, PartOutcome } from '../../jobs/part.js';
import { optionalSecretFile } from '../../jobs/secret-file.js';
import { renderGroup } from '../../metrics/render.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { AutopilotState } from '../../upstream/secrets/autopilot-state.js';
import type { Leader } from '../../upstream/secrets/leader.js';
import { collectEndpoint } from '../endpoint.js';
import { activeNodeFamilies, discoveryFamilies, type ActiveNodeChanges } from './cluster-nodes.js';
import { autopilotStateEndpoint, haStatusEndpoint, leaderEndpoint, nodeHealthEndpoint } from './endpoints.js';
import { nodeAddressing } from './node-addresses.js';
import { activeNode, discover, orLast, type Discovery } from './node-discovery.js';
import type { HaView } from './node-ha-status.js';
import type { SecretsTarget } from './target.js';

/**
 * One keep-alive pool per node, with the cluster's TLS settings, made when a node is first polled
 * and closed when it leaves the cluster (a node's requests count under the target's upstream stats).
 */
class NodeClients {
  private readonly byNode = new Map<string, UpstreamClient>();
  constructor(
    private readonly t: SecretsTarget,
    private readonly ctx: BuildContext,
  ) {}

  client(node: string): UpstreamClient {
    let c = this.byNode.get(node);
    if (!c) this.byNode.set(node, (c = clientFor('secrets', this.t, this.ctx, { node })));
    return c;
  }

  /** Closes the pools of nodes no longer polled, and forgets their request counts. */
  keepOnly(nodes: readonly string[]): void {
    const kept = new Set(nodes);
    for (const [node, c] of this.byNode) {
      if (kept.has(node)) continue;
      this.byNode.delete(node);
      const i = this.ctx.clients.indexOf(c);
      if (i >= 0) this.ctx.clients.splice(i, 1);
      void c.close().catch(() => undefined);
      this.ctx.upstreamStats.get(`vigil/upstream/secrets/${this.t.name}`)?.nodeRequests.delete(node);
    }
  }
}

/**
 * The node poll of one secrets cluster, on its own schedule: the HA status, autopilot state and
 * leader at the configured address, then each node found (or listed) at its own address, and what
 * follows across them: the nodes found and from where, the active node and its changes.
 */
export function nodesJob(t: SecretsTarget, ctx: BuildContext, client: UpstreamClient, changes: ActiveNodeChanges): Job {
  const nodes = new NodeClients(t, ctx);
  const addressing = nodeAddressing(t.address, t.nodes.address_template);
  const token = () => optionalSecretFile(t.token_file, 'token_file');
  const context = { target: t.name };
  const known = new Map<string, string>();
  let last: Discovery | undefined;
  return {
    collector: 'secrets_nodes',
    target: t.name,
    schedule: t.nodes.schedule ?? t.schedule,
    run: async (signal) => {
      const call = { client, token, signal };
      const opts = { context, turns: ctx.turns };
      const [ha, autopilot, leader] = await Promise.all([
        collectEndpoint(haStatusEndpoint, { ...call, addressing }, opts),
        collectEndpoint(autopilotStateEndpoint, call, opts),
        collectEndpoint(leaderEndpoint, call, opts),
      ]);
      const found = orLast(
        discover({
          configured: t.nodes.addresses,
          address: t.address,
          addressing,
          ha: ha as PartOutcome<HaView>,
          autopilot: autopilot as PartOutcome<AutopilotState>,
          known,
          templated: t.nodes.address_template !== undefined,
        }),
        last,
      );
      last = found;
      // A node that does not answer is the node's failure, which secrets_node_up reports, not the poll's.
      const health = await Promise.all(
        found.nodes.map(async (node): Promise<PartOutcome> => {
          const o = await collectEndpoint(
            nodeHealthEndpoint,
            { client: nodes.client(node), signal },
            { part: `node ${node}`, context: { ...context, node }, turns: ctx.turns },
          );
          return o.error ? { ...o, reportedByUp: true } : o;
        }),
      );
      nodes.keepOnly(found.nodes);
      const active = activeNode(ha.value as HaView | undefined, leader.value as Leader | undefined, found.nodes);
      const cluster = { discovery: found, active, changes: changes.see(t.name, active) };
      const derived: PartOutcome = { part: 'cluster_nodes', group: renderGroup([...discoveryFamilies, ...activeNodeFamilies], cluster, context) };
      return [ha, autopilot, leader, ...health, derived];
    },
  };
}
