import { family, single, type Family } from '../../metrics/family.js';
import type { AclTokenSelf } from '../../upstream/agent/acl-token-self.js';

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
