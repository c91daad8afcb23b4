import type http from 'node:http';
import { sendEmpty, sendJson } from '../common/http.js';
import { stableUuid } from './identity.js';

const DAY_MS = 86_400_000;
/** What a fresh Enterprise agent's licence has left: a year. */
const DEFAULT_LIFE_MS = 365 * DAY_MS;

/**
 * The Enterprise licence one agent answers with: since 1.1 each server loads its own licence file,
 * and `GET /v1/operator/license` is answered by the server asked, not the leader, so each agent of
 * the simulator has its own. Its id and customer are stable per agent.
 */
export class AgentLicense {
  readonly id: string;
  private readonly issuedAt = Date.now() - 30 * DAY_MS;
  private expiresAt = 0;
  private terminatesAt = 0;

  constructor(agentName: string) {
    this.id = stableUuid(`license:${agentName}`);
    this.reset();
  }

  /** Expires in `expiresIn` seconds (<= 0: expired), terminates in `terminatesIn` (the expiry when not given, as the documented sample has it). */
  set(expiresIn: number, terminatesIn?: number): void {
    this.expiresAt = Date.now() + expiresIn * 1000;
    this.terminatesAt = terminatesIn === undefined ? this.expiresAt : Date.now() + terminatesIn * 1000;
  }

  reset(): void {
    this.set(DEFAULT_LIFE_MS / 1000);
  }

  /** When it expires (Unix milliseconds): what `nomad.license.expiration_time_epoch` reports, in seconds. */
  get expiresAtMs(): number {
    return this.expiresAt;
  }

  /** The answer of an Enterprise server (api.LicenseReply: the licence and the query meta). */
  body(): Record<string, unknown> {
    const at = (ms: number) => new Date(ms).toISOString();
    return {
      License: {
        LicenseID: this.id,
        CustomerID: stableUuid(`customer:${this.id}`),
        InstallationID: '*',
        IssueTime: at(this.issuedAt),
        StartTime: at(this.issuedAt),
        ExpirationTime: at(this.expiresAt),
        TerminationTime: at(this.terminatesAt),
        Product: 'nomad',
        Flags: { modules: ['governance-policy', 'multicluster-and-efficiency'] },
        Modules: ['governance-policy', 'multicluster-and-efficiency'],
        Features: ['Automated Upgrades', 'Redundancy Zones', 'Namespaces', 'Resource Quotas', 'Audit Logging', 'Sentinel Policies', 'Multiregion Deployments'],
      },
      ConfigOutdated: false,
      LastIndex: 0,
      LastContact: 0,
      KnownLeader: true,
      NextToken: '',
    };
  }
}

/**
 * `GET /v1/operator/license`: the licence on an Enterprise agent; the community edition's handler
 * writes 204 with no body (command/agent/operator_endpoint_ce.go). The real community handler checks
 * no token; here, as every ACL'd route, operator:read is checked first.
 */
export function sendLicense({ agent }: { agent: { readonly license?: AgentLicense | undefined } }, _q: URLSearchParams, res: http.ServerResponse): void {
  if (!agent.license) return sendEmpty(res, 204);
  sendJson(res, 200, agent.license.body());
}

type Reply = { status: number; body: unknown };
const fail = (status: number, message: string): Reply => ({ status, body: { errors: [message] } });

/**
 * `POST /_sim/license {"expires_in_seconds": N, "terminates_in_seconds"?: M}` sets the agent's
 * licence expiry (N <= 0: expired) and termination; `DELETE /_sim/license` gives it a year again.
 * Undefined for a route that is not one of them.
 */
export function licenseAdmin(license: AgentLicense | undefined, method: string, target: string, body: Record<string, unknown>): Reply | undefined {
  if (target !== 'license') return undefined;
  if (!license) return fail(409, 'this agent runs the community edition (no "enterprise": true in the scenario), so it has no licence');
  if (method === 'DELETE') {
    license.reset();
    return { status: 200, body: license.body() };
  }
  if (method !== 'POST') return undefined;
  const { expires_in_seconds: expires, terminates_in_seconds: terminates } = body;
  if (typeof expires !== 'number' || !Number.isFinite(expires)) return fail(400, 'expires_in_seconds must be a number');
  if (terminates !== undefined && (typeof terminates !== 'number' || !Number.isFinite(terminates) || terminates < expires))
    return fail(400, 'terminates_in_seconds must be a number >= expires_in_seconds');
  license.set(expires, terminates as number | undefined);
  return { status: 200, body: license.body() };
}
