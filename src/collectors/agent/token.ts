import { z } from 'zod';
import { family, single, type Family } from '../../metrics/family.js';
import { instant, lenient } from '../../upstream/schema-helpers.js';
import { optional } from './optional.js';

/**
 * `GET /v1/acl/token/self`: the ACL token vigil calls with, readable by any valid token. Only
 * `ExpirationTime` (absent, or the zero time, on a token that does not expire and on servers older
 * than token expiry, 1.4) and `CreateTime` (the start of the token's life, which the expiry is
 * weighed against) are kept. `SecretID` (the token itself) and `AccessorID` are stripped by the
 * schema, so neither can reach a metric or a log.
 */
export const aclTokenSelfResponse = z.object({ ExpirationTime: lenient(instant), CreateTime: lenient(instant) });

export type AclTokenSelf = z.output<typeof aclTokenSelfResponse>;

/** vigil's own ACL token on a cluster, from `/v1/acl/token/self`. */
export const tokenExpiryFamilies: readonly Family<AclTokenSelf>[] = [
  family<AclTokenSelf>({
    name: 'scheduler_agent_token_expiry_timestamp_seconds',
    help: `When the ACL token vigil polls this agent with expires (its ExpirationTime); absent for a token that does not expire and on clusters without ACLs; from a scheduled poll of /v1/acl/token/self with the target token_file.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((t) => t.ExpirationTime),
  }),
  family<AclTokenSelf>({
    name: 'scheduler_agent_token_created_timestamp_seconds',
    help: `When the ACL token vigil polls this agent with was created (its CreateTime), the start of the life its expiry ends; absent with the expiry; from a scheduled poll of /v1/acl/token/self with the target token_file.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((t) => (t.ExpirationTime === undefined ? undefined : t.CreateTime)),
  }),
];

/**
 * vigil's own ACL token: when it expires, so that it is replaced before every other call is refused.
 * Called only on targets with a token_file (the plan says so): without one vigil is anonymous, and
 * nothing expires.
 */
export const tokenEndpoint = optional('token', {
  path: '/v1/acl/token/self',
  schema: aclTokenSelfResponse,
  needs: 'any valid ACL token (a token reads itself)',
  families: tokenExpiryFamilies,
  // A cluster without ACLs answers 400 "ACL support disabled": its token, if any, is never checked, so it cannot expire.
  notApplicable: {
    test: (err) => err.status === 400 && /ACL support disabled/i.test(err.message),
    means: 'the cluster runs without ACLs (400 "ACL support disabled")',
  },
  default: true,
  help: "when vigil's own ACL token expires (any valid token reads itself); with a token_file only",
});
