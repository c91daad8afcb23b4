import { z } from 'zod';
import { toUpstreamError } from '../../upstream/errors.js';
import { endpoint, type Get } from '../endpoint.js';
import type { SecretsAuth } from './auth.js';

/**
 * A request the secrets service audits, made to learn whether it can: vigil's token's own
 * lookup-self, which any token may make (the default policy grants it). `sys/health`, `sys/leader`,
 * `sys/seal-status` and `sys/ha-status` are never audited, so a node whose audit devices are all
 * blocked answers them while every client request hangs (a device that blocks) or fails with
 * 500 "internal error" (one that refuses: the server's answer when no device logged the request).
 * Nothing of the answer is kept: its status says the request was served.
 */
export interface AuditedAnswer {
  /** The request timed out, or answered a server error other than sealed (503) or uninitialized (501). */
  readonly blocked: boolean;
  /** The status it answered; undefined when it timed out. */
  readonly status?: number;
}

/** A refusal (403), a DR secondary's 400: the request was served, and audited. A server error or no answer in time: not served. */
async function audited(get: Get<unknown>): Promise<AuditedAnswer> {
  try {
    return { blocked: false, status: (await get()).status };
  } catch (e) {
    const err = toUpstreamError(e);
    if (err.reason === 'timeout') return { blocked: true };
    if (err.status !== undefined && err.status < 500) return { blocked: false, status: err.status };
    if (err.status !== undefined && err.status !== 501 && err.status !== 503) return { blocked: true, status: err.status };
    // Served, with a body vigil does not read anyway.
    if (err.reason === 'decode' || err.reason === 'schema') return { blocked: false, status: 200 };
    throw err;
  }
}

const NEEDS = 'read on auth/token/lookup-self (the default policy grants it); a refusal (403) is audited too, so it still tells';

const auditedRequest = <const Id extends string>(id: Id) =>
  endpoint({
    id,
    method: 'GET',
    path: '/v1/auth/token/lookup-self',
    // Nothing of the body is read: whatever it says, it was served.
    schema: z.unknown(),
    send: (c: SecretsAuth) => c.namespaced(),
    read: (get) => audited(get as Get<unknown>),
    needs: NEEDS,
    families: [],
  });

/** At the cluster's configured address: stands for the cluster where its nodes are not asked. */
export const auditedRequestEndpoint = auditedRequest('secrets/audited-request');

/** At a node's own address, where the token may go (`nodes.audit_check`). */
export const nodeAuditedRequestEndpoint = auditedRequest('secrets/node-audited-request');
