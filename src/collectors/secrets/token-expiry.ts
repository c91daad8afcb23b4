import { family, single, upFamily, type Family } from '../../metrics/family.js';
import type { TokenLookup } from '../../upstream/secrets/token-lookup-self.js';

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
