import { createHash } from 'node:crypto';
import type http from 'node:http';
import { readJson, sendJson, sendText } from '../common/http.js';

/**
 * The hosted service's metrics service (HCP Terraform "Collect organization metrics",
 * https://developer.hashicorp.com/terraform/cloud-docs/users-teams-organizations/organizations/metrics):
 * `GET /telemetry/hcpt/<organization id>/metrics` with an organization's metrics service token as a
 * bearer token, answering Prometheus text. Only the two families vigil's optional rules read are
 * served, with the documented names and labels:
 *
 * | family | labels | type |
 * |---|---|---|
 * | `tfc_terraform_agent_count` | organization_id, status (idle/busy/unknown/errored/exited), agent_pool_id | gauge |
 * | `terraform_run_status_total` | organization_id, workspace_id, run_status | counter (completed runs by final status) |
 *
 * The real service lives on its own host (api.cloud.hashicorp.com); here it is a path of the
 * simulator's listener. The answer to a bad token is not documented: this one answers 401 for a
 * missing or unknown token and 403 for another organization's (RFC 6750's invalid_token and
 * insufficient_scope), with a plain-text body.
 */
export const AGENT_STATUSES = ['idle', 'busy', 'unknown', 'errored', 'exited'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
export const RUN_STATUSES = ['applied', 'planned_and_finished', 'errored', 'canceled', 'discarded'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const DEFAULT_POOL = 'apool-default';
export const DEFAULT_WORKSPACE = 'ws-default';

export interface OrganizationTelemetry {
  readonly organizationId: string;
  readonly token: string;
  /** pool id → agents by status */
  readonly agents: Map<string, Record<AgentStatus, number>>;
  /** workspace id → completed runs by final status, cumulative */
  readonly runs: Map<string, Record<RunStatus, number>>;
}

/** Every organization's metrics state, made on first use so organizations added later have one too. */
export class TeamsTelemetry {
  private readonly byOrg = new Map<string, OrganizationTelemetry>();

  for(organization: string): OrganizationTelemetry {
    let t = this.byOrg.get(organization);
    if (!t) {
      const digest = createHash('sha256').update(`metrics:${organization}`).digest('hex');
      t = {
        organizationId: `org-${digest.slice(0, 16)}`,
        token: `hcpt_${digest.slice(16, 48)}.${digest.slice(48)}`,
        agents: new Map([[DEFAULT_POOL, { idle: 3, busy: 1, unknown: 0, errored: 0, exited: 0 }]]),
        runs: new Map([[DEFAULT_WORKSPACE, { applied: 12, planned_and_finished: 30, errored: 0, canceled: 1, discarded: 2 }]]),
      };
      this.byOrg.set(organization, t);
    }
    return t;
  }

  byId(organizationId: string): OrganizationTelemetry | undefined {
    return [...this.byOrg.values()].find((t) => t.organizationId === organizationId);
  }

  byToken(token: string): OrganizationTelemetry | undefined {
    return [...this.byOrg.values()].find((t) => t.token === token);
  }

  /** Errored agents in a pool: they come out of the idle ones first, as agents that stop reporting do. */
  setErroredAgents(organization: string, pool: string, count: number): void {
    const agents = this.for(organization).agents;
    const now = agents.get(pool) ?? { idle: 0, busy: 0, unknown: 0, errored: 0, exited: 0 };
    const moved = count - now.errored;
    agents.set(pool, { ...now, errored: count, idle: Math.max(0, now.idle - moved) });
  }

  addRuns(organization: string, workspace: string, status: RunStatus, count: number): void {
    const runs = this.for(organization).runs;
    const now = runs.get(workspace) ?? { applied: 0, planned_and_finished: 0, errored: 0, canceled: 0, discarded: 0 };
    runs.set(workspace, { ...now, [status]: now[status] + count });
  }
}

/** The organization's families in the Prometheus text format. */
export function renderTelemetry(t: OrganizationTelemetry): string {
  const lines = ['# HELP tfc_terraform_agent_count Number of agents in any status by pool.', '# TYPE tfc_terraform_agent_count gauge'];
  for (const [pool, byStatus] of t.agents) {
    for (const status of AGENT_STATUSES) {
      lines.push(`tfc_terraform_agent_count{agent_pool_id="${pool}",organization_id="${t.organizationId}",status="${status}"} ${byStatus[status]}`);
    }
  }
  lines.push('# HELP terraform_run_status_total Cumulative count of completed runs by final status', '# TYPE terraform_run_status_total counter');
  for (const [workspace, byStatus] of t.runs) {
    for (const status of RUN_STATUSES) {
      lines.push(`terraform_run_status_total{organization_id="${t.organizationId}",run_status="${status}",workspace_id="${workspace}"} ${byStatus[status]}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const METRICS_PATH = /^\/telemetry\/hcpt\/([^/]+)\/metrics$/;

export const isTelemetryPath = (path: string): boolean => path.startsWith('/telemetry/');

/** `GET /telemetry/hcpt/<organization id>/metrics`. */
export function handleTelemetry(telemetry: TeamsTelemetry, req: http.IncomingMessage, res: http.ServerResponse, path: string): void {
  const id = METRICS_PATH.exec(path)?.[1];
  const target = id === undefined ? undefined : telemetry.byId(id);
  if (!target) return sendText(res, 404, 'not found');
  const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  const holder = token === undefined ? undefined : telemetry.byToken(token);
  if (!holder) return sendText(res, 401, 'unauthorized');
  if (holder !== target) return sendText(res, 403, 'forbidden');
  const text = renderTelemetry(target);
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * `/_sim/telemetry`: `GET` lists each organization's id, metrics token and path; `POST
 * {organization, pool?, errored_agents?, workspace?, errored_runs?}` sets a pool's errored agents
 * and adds errored runs to a workspace (the defaults: apool-default, ws-default).
 */
export async function telemetryAdmin(
  telemetry: TeamsTelemetry,
  organizations: string[],
  method: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  if (method === 'GET') {
    return sendJson(
      res,
      200,
      organizations.map((name) => {
        const t = telemetry.for(name);
        return { organization: name, organization_id: t.organizationId, token: t.token, path: `/telemetry/hcpt/${t.organizationId}/metrics` };
      }),
    );
  }
  if (method !== 'POST') return sendJson(res, 405, { errors: ['use GET or POST'] });
  let body: Record<string, unknown> | undefined;
  try {
    body = (await readJson(req)) as Record<string, unknown> | undefined;
  } catch {
    body = undefined;
  }
  const { organization, pool = DEFAULT_POOL, workspace = DEFAULT_WORKSPACE, errored_agents: agents, errored_runs: runs } = body ?? {};
  const count = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 0);
  if (typeof organization !== 'string' || !organizations.includes(organization)) return sendJson(res, 404, { errors: ['no such organization'] });
  if (typeof pool !== 'string' || typeof workspace !== 'string' || !count(agents) || !count(runs)) {
    return sendJson(res, 400, { errors: ['body must be {organization, pool?, errored_agents?, workspace?, errored_runs?}'] });
  }
  if (agents !== undefined) telemetry.setErroredAgents(organization, pool, agents as number);
  if (runs !== undefined) telemetry.addRuns(organization, workspace, 'errored', runs as number);
  return sendJson(res, 200, { organization_id: telemetry.for(organization).organizationId });
}
