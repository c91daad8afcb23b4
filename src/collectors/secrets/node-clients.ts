import { clientFor, type BuildContext } from '../../jobs/context.js';
import { renderGroup } from '../../metrics/render.js';
import { nodeTlsFamilies } from '../../telemetry/tls-families.js';
import { carryCertificate, type TlsObservation } from '../../upstream/tls-observer.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { UpstreamError } from '../../upstream/errors.js';
import type { SecretsTarget } from './target.js';

/** The group of a target's node certificates, under its upstream stats key so a removed target's goes with it. */
export const nodeTlsGroup = (target: string): string => `vigil/upstream/secrets/${target}/tls/nodes`;

/**
 * One keep-alive pool per node, with the cluster's TLS settings, made when a node is first polled
 * and closed when it leaves the cluster (a node's requests count under the target's upstream stats).
 * Each node serves its own certificate: what its handshakes show is kept per node, published with
 * the target's upstream stats (`vigil_upstream_node_tls_*`), and dropped when the node leaves.
 */
export class NodeClients {
  private readonly byNode = new Map<string, UpstreamClient>();
  private readonly tls = new Map<string, TlsObservation>();
  constructor(
    private readonly t: SecretsTarget,
    private readonly ctx: BuildContext,
    /**
     * For the clients that send the token (the audited request's): whether it may go to the node, a
     * second guard behind the step's own list. Their handshakes are not published: the node's
     * certificate is the health clients' to watch, one group per target.
     */
    private readonly mayReceiveToken?: (node: string) => boolean,
  ) {}

  client(node: string): UpstreamClient {
    if (this.mayReceiveToken && !this.mayReceiveToken(node))
      throw new UpstreamError('config', 'vigil does not send its token to this node (nodes.audit_check.send_token_to)');
    let c = this.byNode.get(node);
    if (!c) {
      const onTls = (o: TlsObservation) => {
        this.tls.set(node, carryCertificate(o, this.tls.get(node)));
        this.tlsChanged();
      };
      this.byNode.set(node, (c = clientFor('secrets', this.t, this.ctx, { node, ...(this.mayReceiveToken ? {} : { onTls }) })));
    }
    return c;
  }

  /** Closes the pools of nodes no longer polled, and forgets their request counts and certificates. */
  keepOnly(nodes: readonly string[]): void {
    const kept = new Set(nodes);
    for (const [node, c] of this.byNode) {
      if (kept.has(node)) continue;
      this.byNode.delete(node);
      const i = this.ctx.clients.indexOf(c);
      if (i >= 0) this.ctx.clients.splice(i, 1);
      void c.close().catch(() => undefined);
      this.ctx.upstreamStats.get(this.key)?.nodeRequests.delete(node);
      if (this.tls.delete(node)) this.tlsChanged();
    }
  }

  private get key(): string {
    return `vigil/upstream/secrets/${this.t.name}`;
  }

  /** Published with the target's upstream stats at its next commit. */
  private tlsChanged(): void {
    const group = nodeTlsGroup(this.t.name);
    const seen = new Map(this.tls);
    const target = this.t.name;
    this.ctx.unpublished.set(group, { target, publish: () => this.ctx.store.replace(group, renderGroup(nodeTlsFamilies, seen, { target })) });
  }
}
