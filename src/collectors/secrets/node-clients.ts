import { clientFor, type BuildContext } from '../../jobs/context.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { UpstreamError } from '../../upstream/errors.js';
import type { SecretsTarget } from './target.js';

/**
 * One keep-alive pool per node, with the cluster's TLS settings, made when a node is first polled
 * and closed when it leaves the cluster (a node's requests count under the target's upstream stats).
 */
export class NodeClients {
  private readonly byNode = new Map<string, UpstreamClient>();
  constructor(
    private readonly t: SecretsTarget,
    private readonly ctx: BuildContext,
    /** For clients that send the token: whether it may go to the node (a second guard behind the step's own list). */
    private readonly mayReceiveToken?: (node: string) => boolean,
  ) {}

  client(node: string): UpstreamClient {
    if (this.mayReceiveToken && !this.mayReceiveToken(node))
      throw new UpstreamError('config', 'vigil does not send its token to this node (nodes.audit_check.send_token_to)');
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
