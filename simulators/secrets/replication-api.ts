import { noContent, ok } from './api-error.js';
import type { Kind } from './cluster.js';
import { merkleCheck } from './merkle.js';
import { attemptView, cancelAttempt, provideKeyShare, revokeOperationToken, startAttempt } from './operation-token.js';
import { endpoint, post, type Access, type Endpoint } from './replication-endpoint.js';
import {
  changePrimary,
  ENABLE_WARNING,
  noDynamicFilter,
  onDrSecondary,
  pathsFilter,
  pathsFilterBody,
  promote,
  secondaryToken,
} from './replication-handlers.js';
import { demotePrimary, disablePrimary, enablePrimary, revokeSecondary } from './replication-primary.js';
import { primaryRole, secondaryRole } from './replication-roles.js';
import { disableSecondary, enableSecondary } from './replication-secondary.js';
import { optionalString, requiredString } from './request-body.js';
import { envelope, replicationStatus } from './status-body.js';

const DR_TOKEN_OR_CLIENT: Record<Kind, Access> = { dr: 'operation-token', performance: 'client' };

/** Every endpoint below `sys/replication/` (a table of data). */
export const ENDPOINTS: Endpoint[] = [
  endpoint('{kind}/status', 'public', 'Reads the replication status of this cluster.', {
    GET: (ctx) => {
      ctx.fleet.refresh(ctx.now);
      return ok(envelope(ctx.cluster, { data: replicationStatus(ctx.cluster, ctx.kind) }));
    },
  }),
  post('{kind}/primary/enable', 'client', 'Enables replication in primary mode.', (ctx) => {
    enablePrimary(ctx.cluster, ctx.kind, optionalString(ctx.body, 'primary_cluster_addr') ?? '');
    return ok(envelope(ctx.cluster, { warnings: [ENABLE_WARNING] }));
  }),
  post('{kind}/primary/demote', 'client', 'Demotes this primary to a secondary that is not connected to any primary.', (ctx) => {
    demotePrimary(ctx.cluster, ctx.kind);
    return noContent();
  }),
  post('{kind}/primary/disable', 'client', 'Disables replication on this primary.', (ctx) => {
    disablePrimary(ctx.cluster, ctx.kind);
    return noContent();
  }),
  post('{kind}/primary/secondary-token', 'sudo', 'Generates an activation token for a secondary.', secondaryToken),
  post('{kind}/primary/revoke-secondary', 'client', 'Revokes a secondary; it is disconnected immediately.', (ctx) => {
    revokeSecondary(ctx.fleet, ctx.cluster, ctx.kind, requiredString(ctx.body, 'id'));
    return noContent();
  }),
  post('{kind}/secondary/generate-public-key', 'client', 'Generates a public key a primary can encrypt an activation token with.', (ctx) =>
    ok(envelope(ctx.cluster, { data: { secondary_public_key: Buffer.from(ctx.cluster.clusterAddr).toString('base64') } })),
  ),
  post('{kind}/secondary/enable', 'client', 'Enables replication in secondary mode; all data in the cluster is cleared.', (ctx) => {
    const token = requiredString(ctx.body, 'token');
    enableSecondary(ctx.fleet, ctx.cluster, ctx.kind, token, optionalString(ctx.body, 'primary_api_addr') ?? '', ctx.now);
    return ok(envelope(ctx.cluster, { warnings: [ENABLE_WARNING] }));
  }),
  post('{kind}/secondary/promote', DR_TOKEN_OR_CLIENT, 'Promotes this secondary to a primary.', promote),
  post('{kind}/secondary/disable', DR_TOKEN_OR_CLIENT, 'Disables replication on this secondary.', (ctx) => {
    disableSecondary(ctx.cluster, ctx.kind);
    return noContent();
  }),
  post('{kind}/secondary/update-primary', DR_TOKEN_OR_CLIENT, 'Changes the primary this secondary follows; data is not wiped.', changePrimary),
  endpoint('performance/primary/paths-filter/{id}', 'client', 'Creates, reads or deletes the paths filter of a performance secondary.', {
    GET: (ctx) => ok(envelope(ctx.cluster, { data: pathsFilter(ctx) })),
    POST: (ctx) => {
      const filter = pathsFilterBody(ctx.body);
      primaryRole(ctx.cluster, 'performance').pathsFilters.set(ctx.params.id ?? '', filter);
      return noContent();
    },
    DELETE: (ctx) => {
      primaryRole(ctx.cluster, 'performance').pathsFilters.delete(ctx.params.id ?? '');
      return noContent();
    },
  }),
  endpoint('performance/primary/dynamic-filter/{id}', 'client', 'Reads the mounts and namespaces a paths filter excludes for a secondary.', {
    GET: (ctx) => {
      pathsFilter(ctx);
      return ok(envelope(ctx.cluster, { data: noDynamicFilter }));
    },
  }),
  endpoint('performance/secondary/dynamic-filter/{id}', 'client', 'Reads the mounts and namespaces filtered out of this secondary.', {
    GET: (ctx) => {
      secondaryRole(ctx.cluster, 'performance');
      return ok(envelope(ctx.cluster, { data: noDynamicFilter }));
    },
  }),
  endpoint('dr/secondary/generate-operation-token/attempt', 'key-shares', 'Reads, starts or cancels a DR operation token generation attempt.', {
    GET: onDrSecondary((ctx) => ok(attemptView(ctx.cluster))),
    POST: onDrSecondary((ctx) => ok(startAttempt(ctx.cluster, optionalString(ctx.body, 'pgp_key')))),
    DELETE: onDrSecondary((ctx) => {
      cancelAttempt(ctx.cluster);
      return noContent();
    }),
  }),
  post(
    'dr/secondary/generate-operation-token/update',
    'key-shares',
    'Supplies one unseal key share to the attempt in progress.',
    onDrSecondary((ctx) => ok(provideKeyShare(ctx.cluster, requiredString(ctx.body, 'key'), requiredString(ctx.body, 'nonce')))),
  ),
  post('dr/secondary/operation-token/delete', 'operation-token', 'Revokes a DR operation token.', (ctx) => {
    revokeOperationToken(ctx.cluster, requiredString(ctx.body, 'dr_operation_token'));
    return noContent();
  }),
  post(
    'dr/secondary/reindex',
    'operation-token',
    'Reindexes the local data of this DR secondary.',
    onDrSecondary((ctx) => {
      ctx.cluster.replication.dr.lastReindex = ctx.now;
      return ok(envelope(ctx.cluster, { warnings: ['reindex complete'] }));
    }),
  ),
  post(
    'dr/secondary/merkle-check',
    'operation-token',
    'Checks the merkle trees of this DR secondary for corruption.',
    onDrSecondary((ctx) => ok(envelope(ctx.cluster, { data: merkleCheck(ctx.cluster.replication.dr, ctx.now) }))),
  ),
];

export interface EndpointMatch {
  endpoint: Endpoint;
  kind: Kind;
  params: Record<string, string>;
}

export function matchEndpoint(segments: string[]): EndpointMatch | undefined {
  for (const endpoint of ENDPOINTS) {
    if (endpoint.pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let kind: Kind | undefined;
    const matches = endpoint.pattern.every((part, i) => {
      const seg = segments[i] ?? '';
      if (part === '{kind}' || part === 'dr' || part === 'performance') {
        if (seg !== 'dr' && seg !== 'performance') return false;
        if (part !== '{kind}' && part !== seg) return false;
        kind = seg;
        return true;
      }
      if (part.startsWith('{')) {
        params[part.slice(1, -1)] = seg;
        return seg !== '';
      }
      return part === seg;
    });
    if (matches && kind) return { endpoint, kind, params };
  }
  return undefined;
}

export function accessFor(match: EndpointMatch): Access {
  const access = match.endpoint.access;
  return typeof access === 'string' ? access : access[match.kind];
}
