import { badRequest, noContent, notFound, ok, type Reply } from './api-error.js';
import type { PathsFilter } from './cluster.js';
import { primaryRole, secondaryRole } from './replication-roles.js';
import { promoteSecondary, updatePrimary } from './replication-secondary.js';
import { issueSecondaryToken } from './replication-primary.js';
import type { ApiContext } from './replication-endpoint.js';
import { optionalBool, optionalString, optionalStringArray, parseTtlSeconds, requiredString, type Body } from './request-body.js';
import { envelope } from './status-body.js';

/** The replication endpoints' handlers that do more than call one state change (the table is in replication-api.ts). */

export const ENABLE_WARNING =
  'This cluster is being enabled for replication. The service will be unavailable for a brief period and will resume service shortly.';

/** The DR operation token endpoints exist only on a DR secondary. */
export function onDrSecondary(handler: (ctx: ApiContext) => Reply): (ctx: ApiContext) => Reply {
  return (ctx) => {
    secondaryRole(ctx.cluster, 'dr');
    return handler(ctx);
  };
}

export function pathsFilterBody(body: Body): PathsFilter {
  const mode = optionalString(body, 'mode') ?? 'allow';
  if (mode !== 'allow' && mode !== 'deny') throw badRequest('"mode" must be "allow" or "deny"');
  const paths = optionalStringArray(body, 'paths') ?? [];
  const bad = paths.find((p) => !p.endsWith('/'));
  if (bad !== undefined) throw badRequest(`path "${bad}" must end in "/"`);
  return { mode, paths };
}

export function pathsFilter(ctx: ApiContext): PathsFilter {
  const filter = primaryRole(ctx.cluster, 'performance').pathsFilters.get(ctx.params.id ?? '');
  if (!filter) throw notFound(`no paths filter for secondary "${ctx.params.id}"`);
  return filter;
}

export const noDynamicFilter = { dynamic_filtered_mounts: [], dynamic_filtered_namespaces: [] };

export function secondaryToken(ctx: ApiContext): Reply {
  const id = requiredString(ctx.body, 'id');
  const ttl = parseTtlSeconds(optionalString(ctx.body, 'ttl') ?? '30m');
  const token = issueSecondaryToken(ctx.fleet, ctx.cluster, ctx.kind, id, ttl, ctx.now);
  // With a public key the real service encrypts the credentials instead of wrapping them.
  if (optionalString(ctx.body, 'secondary_public_key')) return ok(envelope(ctx.cluster, { data: { token } }));
  const wrapInfo = {
    token,
    accessor: token.slice(-24),
    ttl,
    creation_time: ctx.now.toISOString(),
    creation_path: `sys/replication/${ctx.kind}/primary/secondary-token`,
    wrapped_accessor: '',
  };
  return ok(envelope(ctx.cluster, { wrap_info: wrapInfo }));
}

export function promote(ctx: ApiContext): Reply {
  promoteSecondary(ctx.cluster, ctx.kind, optionalBool(ctx.body, 'force') ?? false, optionalString(ctx.body, 'primary_cluster_addr') ?? '');
  if (ctx.kind === 'performance') return noContent();
  const progress = { complete: true, progress: ctx.cluster.keys.threshold, required: ctx.cluster.keys.threshold };
  return ok({ ...progress, ...envelope(ctx.cluster, { data: progress }) });
}

export function changePrimary(ctx: ApiContext): Reply {
  const token = optionalString(ctx.body, 'token');
  const primaryApiAddr = optionalString(ctx.body, 'primary_api_addr');
  const request = {
    ...(token !== undefined ? { token } : {}),
    ...(primaryApiAddr !== undefined ? { primaryApiAddr } : {}),
    updatePrimaryAddrs: optionalStringArray(ctx.body, 'update_primary_addrs') ?? [],
  };
  updatePrimary(ctx.fleet, ctx.cluster, ctx.kind, request, ctx.now);
  return noContent();
}
