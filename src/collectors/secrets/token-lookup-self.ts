import { z } from 'zod';
import { family, single, upFamily, type Family } from '../../metrics/family.js';
import type { UpstreamError } from '../../upstream/errors.js';
import { boolish, instant, lenient } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';
import type { SecretsAuth } from './auth.js';

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

/**
 * 403: the token's policies do not grant read on `auth/token/lookup-self` (the default policy does,
 * a token made with `no_default_policy` may not), or the token is no longer valid. The service does
 * not tell the two apart, so neither is reported here; an expired token is caught by the rule on the
 * last expiry seen, a refused one by the endpoints that need it.
 */
export const tokenLookupNotApplicable = (err: UpstreamError): boolean => err.status === 403 || drSecondary(err);

/** A DR secondary answers every authenticated path, lookup-self included, 400 "path disabled in replication DR secondary mode": nothing to look up there. */
const drSecondary = (err: UpstreamError): boolean => err.status === 400 && /path disabled/i.test(err.message);

/** vigil's own token on a secrets service, from `auth/token/lookup-self`: when it expires, and whether a renewal can push that back. */

const FROM_POLL = 'from a scheduled poll of /v1/auth/token/lookup-self with the target token_file';

export const tokenLookupUp = upFamily({
  name: 'secrets_token_lookup_up',
  help: `1 when the last scheduled lookup of vigil's own token succeeded and parsed, else 0; absent on targets without a token_file and when the service refuses the lookup (403: the token's policy lacks it, or the token is no longer valid).`,
  section: 'secrets',
  labels: ['target'],
});

export const tokenExpiryFamilies: readonly Family<TokenLookup>[] = [
  family<TokenLookup>({
    name: 'secrets_token_expiry_timestamp_seconds',
    help: `When the token vigil polls this target with expires (its expire_time); absent for a token that does not expire (root, or ttl 0); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((t) => t.expire_time),
  }),
  family<TokenLookup>({
    name: 'secrets_token_renewed_timestamp_seconds',
    help: `When the current lifetime of the token vigil polls this target with began: its last renewal, else its issue; absent with the expiry; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((t) => (t.expire_time === undefined ? undefined : (t.last_renewal_time ?? t.issue_time))),
  }),
  family<TokenLookup>({
    name: 'secrets_token_renewable',
    help: `1 when the token vigil polls this target with can be renewed (its expiry pushed back up to its max TTL), 0 when it must be replaced before it expires; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target'],
    samples: single((t) => (t.expire_time === undefined ? undefined : t.renewable)),
  }),
];

/** vigil's own token: when it expires, so that it is renewed or replaced before the service refuses it. */
export const tokenLookupSelfEndpoint = endpoint({
  id: 'secrets/token-lookup-self',
  method: 'GET',
  path: '/v1/auth/token/lookup-self',
  schema: tokenLookupSelfResponse,
  send: (c: SecretsAuth) => c.namespaced(),
  read: async (get) => (await get()).value.data,
  needs: 'read on auth/token/lookup-self (the default policy grants it)',
  up: tokenLookupUp,
  families: tokenExpiryFamilies,
  notApplicable: {
    test: tokenLookupNotApplicable,
    means:
      'the service refuses the lookup (403: the token\'s policy lacks it, or the token is no longer valid), or the cluster is a DR secondary (400 "path disabled in replication DR secondary mode")',
  },
});
