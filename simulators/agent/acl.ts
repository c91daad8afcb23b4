import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { AclPolicy, AclSpec } from './scenario.js';

const TOKEN_HEADER = 'x-scheduler-token';
const READ_POLICIES: readonly AclPolicy[] = ['agent:read', 'node:read', 'operator:read', 'namespace:list-jobs', 'namespace:read-job'];
const ALL_POLICIES: readonly AclPolicy[] = [...READ_POLICIES, 'agent:write'];

interface Token {
  accessor: string;
  name: string;
  type: 'client' | 'management';
  policies: ReadonlySet<AclPolicy>;
  createTime: Date;
  /** Unset: the token never expires (`ExpirationTime` absent), as most tokens. */
  expiresAt?: Date;
}

/** What `/v1/acl/token/self` answers: the token as the real agent shows it, or its error text. */
export type TokenSelf = { status: 200; body: Record<string, unknown> } | { status: 400 | 403 | 404 | 500; text: string };

/** How an expired token is answered: 403 as before 1.10.1, or as servers from 1.10.1 do, 500 with the resolver's error unmapped. */
export type ExpiredStatus = 403 | 500;
const EXPIRED_RPC = { status: 500, text: 'rpc error: ACL token expired' } as const;

/**
 * The cluster-wide ACL system every agent of one simulator shares. With ACLs off every request is
 * allowed, whatever token it carries, as on a real agent.
 */
export class Acl {
  readonly enabled: boolean;
  readonly readToken: string = randomUUID();
  readonly managementToken: string = randomUUID();
  private readonly tokens = new Map<string, Token>();
  private expiredStatus: ExpiredStatus = 403;

  constructor(spec?: AclSpec) {
    this.enabled = spec?.enabled ?? false;
    this.add(this.readToken, 'vigil read token', READ_POLICIES);
    this.add(this.managementToken, 'Bootstrap Token', ALL_POLICIES, 'management');
    for (const t of spec?.tokens ?? []) this.add(t.secret, 'scenario token', t.policies);
  }

  private add(secret: string, name: string, policies: readonly AclPolicy[], type: Token['type'] = 'client'): void {
    this.tokens.set(secret, { accessor: randomUUID(), name, type, policies: new Set(policies), createTime: new Date() });
  }

  /** The token a request carries, if the cluster knows it; an expired one is refused like an unknown one. */
  private tokenOf(req: http.IncomingMessage): Token | undefined {
    const header = req.headers[TOKEN_HEADER];
    const secret = Array.isArray(header) ? header[0] : header;
    return secret ? this.tokens.get(secret) : undefined;
  }

  allows(req: http.IncomingMessage, policy: AclPolicy): boolean {
    if (!this.enabled) return true;
    const token = this.tokenOf(req);
    if (!token || expired(token)) return false;
    // A write policy on the agent includes read, as in the real policy language.
    return token.policies.has(policy) || (policy === 'agent:read' && token.policies.has('agent:write'));
  }

  /**
   * Sets when the read token (the one vigil is given) expires: in `seconds` (negative: already
   * expired), or never (undefined); and, with `createdAgo`, how long ago it was made.
   */
  expireReadToken(seconds: number | undefined, createdAgo?: number, expiredStatus: ExpiredStatus = 403): { expires_at: string | null } {
    const token = this.tokens.get(this.readToken) as Token;
    this.expiredStatus = expiredStatus;
    token.expiresAt = seconds === undefined ? undefined : new Date(Date.now() + seconds * 1000);
    if (createdAgo !== undefined) token.createTime = new Date(Date.now() - createdAgo * 1000);
    return { expires_at: token.expiresAt?.toISOString() ?? null };
  }

  /** The answer to a call with an expired token where it is not the 403 of a refused policy: from 1.10.1, a 500. */
  expiredAnswer(req: http.IncomingMessage): typeof EXPIRED_RPC | undefined {
    if (!this.enabled || this.expiredStatus !== 500) return undefined;
    const token = this.tokenOf(req);
    return token && expired(token) ? EXPIRED_RPC : undefined;
  }

  /** `GET /v1/acl/token/self`, as ACL.ResolveToken answers it (any valid token reads itself). */
  self(req: http.IncomingMessage): TokenSelf {
    if (!this.enabled) return { status: 400, text: 'ACL support disabled' };
    const token = this.tokenOf(req);
    if (!token) return { status: 403, text: 'ACL token not found' };
    if (expired(token)) return this.expiredStatus === 500 ? EXPIRED_RPC : { status: 403, text: 'ACL token expired' };
    const secret = [...this.tokens].find(([, t]) => t === token)?.[0];
    return {
      status: 200,
      body: {
        AccessorID: token.accessor,
        SecretID: secret,
        Name: token.name,
        Type: token.type,
        Policies: token.type === 'management' ? null : [...token.policies],
        Roles: [],
        Global: false,
        CreateTime: token.createTime.toISOString(),
        ...(token.expiresAt ? { ExpirationTime: token.expiresAt.toISOString() } : {}),
        CreateIndex: 7,
        ModifyIndex: 7,
      },
    };
  }
}

const expired = (t: Token): boolean => t.expiresAt !== undefined && t.expiresAt.getTime() <= Date.now();
