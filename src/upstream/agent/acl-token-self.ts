import { z } from 'zod';
import type { UpstreamClient } from '../client.js';
import type { UpstreamError } from '../errors.js';
import { parseBody } from '../parse.js';
import { instant, lenient } from '../schema-helpers.js';
import { authHeaders, type AgentAuth } from './api.js';

/**
 * `GET /v1/acl/token/self`: the ACL token vigil calls with, readable by any valid token. Only
 * `ExpirationTime` (absent, or the zero time, on a token that does not expire and on servers older
 * than token expiry, 1.4) and `CreateTime` (the start of the token's life, which the expiry is
 * weighed against) are kept. `SecretID` (the token itself) and `AccessorID` are stripped by the
 * schema, so neither can reach a metric or a log.
 */
export const aclTokenSelfResponse = z.object({ ExpirationTime: lenient(instant), CreateTime: lenient(instant) });

export type AclTokenSelf = z.output<typeof aclTokenSelfResponse>;

export const ACL_TOKEN_SELF_ENDPOINT = 'acl/token/self';

export async function fetchAclTokenSelf(client: UpstreamClient, auth: AgentAuth, signal: AbortSignal): Promise<AclTokenSelf> {
  const res = await client.json({ endpoint: ACL_TOKEN_SELF_ENDPOINT, path: `/v1/${ACL_TOKEN_SELF_ENDPOINT}`, headers: authHeaders(auth), signal });
  return parseBody(aclTokenSelfResponse, res.body, ACL_TOKEN_SELF_ENDPOINT);
}

/** A cluster without ACLs answers 400 "ACL support disabled": its token, if any, is never checked, so it cannot expire. */
export const aclTokenSelfNotApplicable = (err: UpstreamError): boolean => err.status === 400 && /ACL support disabled/i.test(err.message);
