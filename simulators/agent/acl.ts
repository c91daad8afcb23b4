import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { AclPolicy, AclSpec } from './scenario.js';

const TOKEN_HEADER = 'x-scheduler-token';
const ALL_POLICIES: readonly AclPolicy[] = ['agent:read', 'agent:write', 'node:read', 'operator:read'];

/**
 * The cluster-wide ACL system every agent of one simulator shares. With ACLs off every request is
 * allowed, whatever token it carries, as on a real agent.
 */
export class Acl {
  readonly enabled: boolean;
  readonly readToken: string = randomUUID();
  readonly managementToken: string = randomUUID();
  private readonly tokens = new Map<string, ReadonlySet<AclPolicy>>();

  constructor(spec?: AclSpec) {
    this.enabled = spec?.enabled ?? false;
    this.tokens.set(this.readToken, new Set<AclPolicy>(['agent:read', 'node:read', 'operator:read']));
    this.tokens.set(this.managementToken, new Set(ALL_POLICIES));
    for (const t of spec?.tokens ?? []) this.tokens.set(t.secret, new Set(t.policies));
  }

  allows(req: http.IncomingMessage, policy: AclPolicy): boolean {
    if (!this.enabled) return true;
    const header = req.headers[TOKEN_HEADER];
    const secret = Array.isArray(header) ? header[0] : header;
    const granted = secret ? this.tokens.get(secret) : undefined;
    if (!granted) return false;
    // A write policy on the agent includes read, as in the real policy language.
    return granted.has(policy) || (policy === 'agent:read' && granted.has('agent:write'));
  }
}
