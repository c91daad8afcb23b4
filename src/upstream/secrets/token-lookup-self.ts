import { z } from 'zod';
import type { UpstreamClient } from '../client.js';
import type { UpstreamError } from '../errors.js';
import { parseBody } from '../parse.js';
import { boolish, instant, lenient } from '../schema-helpers.js';
import { headers, type SecretsAuth } from './api.js';

/**
 * `GET /v1/auth/token/lookup-self`: what the service knows of the token vigil calls with. Only the
 * expiry and whether a renewal can push it back are kept; `id` (the token itself), `accessor` and the
 * rest are never read, so no value of theirs can reach a metric or a log. A root or otherwise
 * non-expiring token answers `expire_time: null` (and `ttl: 0`): no expiry, not an expiry at the epoch.
 */
const token = z.object({
  expire_time: lenient(instant),
  renewable: lenient(boolish),
  /** When the current lifetime began: the last renewal (Unix seconds), else the issue (RFC 3339). */
  issue_time: lenient(instant),
  last_renewal_time: lenient(instant),
});

export const tokenLookupSelfResponse = z.object({ data: token });

export type TokenLookup = z.output<typeof token>;

export const TOKEN_LOOKUP_ENDPOINT = 'auth/token/lookup-self';

export async function fetchTokenLookupSelf(client: UpstreamClient, auth: SecretsAuth, signal: AbortSignal): Promise<TokenLookup> {
  const res = await client.json({ endpoint: TOKEN_LOOKUP_ENDPOINT, path: `/v1/${TOKEN_LOOKUP_ENDPOINT}`, headers: headers(auth), signal });
  return parseBody(tokenLookupSelfResponse, res.body, TOKEN_LOOKUP_ENDPOINT).data;
}

/**
 * 403: the token's policies do not grant read on `auth/token/lookup-self` (the default policy does,
 * a token made with `no_default_policy` may not), or the token is no longer valid. The service does
 * not tell the two apart, so neither is reported here; an expired token is caught by the rule on the
 * last expiry seen, a refused one by the endpoints that need it.
 */
export const tokenLookupNotApplicable = (err: UpstreamError): boolean => err.status === 403;
