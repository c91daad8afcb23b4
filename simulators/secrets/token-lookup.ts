import { createHash } from 'node:crypto';
import { ApiError, ok, permissionDenied, type Reply } from './api-error.js';
import type { ClientToken } from './cluster.js';

export const TOKEN_LOOKUP_SELF = 'auth/token/lookup-self';

/**
 * `GET /v1/auth/token/lookup-self`: the calling token as the token store shows it. A token without
 * expiry (the root token) has `expire_time: null` and `ttl: 0`; an expired or unknown one is refused
 * with 403, as the service refuses a revoked token. Any valid token may look itself up (the
 * default policy's grant).
 */
export function tokenLookupSelf(token: string | undefined, entry: ClientToken | undefined, method: string, startedAt: Date): Reply {
  if (method !== 'GET') throw new ApiError(405, ['unsupported operation'], { allow: 'GET' });
  if (token === undefined || entry === undefined) throw permissionDenied();
  const ttl = entry.expiresAt ? Math.max(0, Math.round((entry.expiresAt.getTime() - Date.now()) / 1000)) : 0;
  return ok({
    request_id: createHash('sha1').update(`${token}:${Date.now()}`).digest('hex').slice(0, 36),
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data: {
      // The accessor is derived from the token so it stays the same across lookups, as a real one does.
      accessor: createHash('sha256').update(token).digest('base64url').slice(0, 24),
      creation_ttl: ttl,
      display_name: entry.sudo ? 'root' : 'token',
      entity_id: '',
      expire_time: entry.expiresAt?.toISOString() ?? null,
      explicit_max_ttl: 0,
      id: token,
      issue_time: (entry.issuedAt ?? startedAt).toISOString(),
      meta: null,
      num_uses: 0,
      orphan: true,
      path: entry.sudo ? 'auth/token/root' : 'auth/token/create',
      policies: entry.sudo ? ['root'] : ['default'],
      renewable: entry.expiresAt !== undefined,
      ttl,
      type: 'service',
    },
    wrap_info: null,
    warnings: null,
    auth: null,
  });
}
