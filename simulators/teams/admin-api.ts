import type http from 'node:http';
import { handleFaultAdmin } from '../common/faults.js';
import { readJson, sendEmpty, sendJson } from '../common/http.js';
import { addOrganization, type SimulatorContext } from './context.js';
import { organizationSpecSchema } from './scenario.js';
import { telemetryAdmin } from './telemetry.js';

type Body = Record<string, unknown>;

const fail = (res: http.ServerResponse, status: number, message: string): void => sendJson(res, status, { errors: [message] });

async function readObject(req: http.IncomingMessage): Promise<Body | undefined> {
  try {
    const body = await readJson(req);
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : undefined;
  } catch {
    return undefined;
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** `POST {page, status?, delay_ms?}` binds a fault to one page number of every team list; `DELETE` clears them all. */
async function pageFaults(ctx: SimulatorContext, method: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const show = (): void => sendJson(res, 200, Object.fromEntries(ctx.pageFaults));
  if (method === 'GET') return show();
  if (method === 'DELETE') {
    ctx.pageFaults.clear();
    return sendEmpty(res);
  }
  if (method !== 'POST') return fail(res, 405, 'use GET, POST or DELETE');
  const body = await readObject(req);
  const page = body?.page;
  if (!body || !isCount(page) || page < 1) return fail(res, 400, 'page must be a positive integer');
  const { status, delay_ms: delayMs } = body;
  if (status !== undefined && (!isCount(status) || status < 100 || status > 599)) return fail(res, 400, 'status must be an HTTP status');
  if (delayMs !== undefined && !isCount(delayMs)) return fail(res, 400, 'delay_ms must be a non-negative integer');
  if (status === undefined && delayMs === undefined) return fail(res, 400, 'give status and/or delay_ms');
  ctx.pageFaults.set(page, { ...(status !== undefined ? { status } : {}), ...(delayMs !== undefined ? { delayMs } : {}) });
  return show();
}

async function rateLimit(ctx: SimulatorContext, method: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (method === 'POST') {
    const perSecond = (await readObject(req))?.per_second;
    if (typeof perSecond !== 'number' || perSecond <= 0) return fail(res, 400, 'per_second must be a positive number');
    ctx.limiter.perSecond = perSecond;
  } else if (method !== 'GET') return fail(res, 405, 'use GET or POST');
  return sendJson(res, 200, { per_second: ctx.limiter.perSecond });
}

async function exhaust(ctx: SimulatorContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const token = (await readObject(req))?.token;
  if (typeof token !== 'string' || token === '') return fail(res, 400, 'token must be a string');
  ctx.limiter.exhaust(token);
  return sendEmpty(res);
}

async function organizations(ctx: SimulatorContext, method: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (method === 'GET') {
    return sendJson(
      res,
      200,
      ctx.store.organizations().map((o) => ({ name: o.name, teams: o.teams.length, owner_token: o.ownerToken })),
    );
  }
  if (method !== 'POST') return fail(res, 405, 'use GET or POST');
  const spec = organizationSpecSchema.safeParse(await readObject(req));
  if (!spec.success) return fail(res, 400, `body must be {name, teams, seed?, owners?}: ${spec.error.message}`);
  const { name, teams } = spec.data;
  if (ctx.store.organization(name)) return fail(res, 409, `organization ${name} already exists`);
  return sendJson(res, 201, { name, teams, owner_token: addOrganization(ctx.store, spec.data) });
}

/** For a simulator run as its own process, where a test cannot call memberToken() directly. */
async function memberToken(ctx: SimulatorContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const body = await readObject(req);
  const { organization, team } = body ?? {};
  if (typeof organization !== 'string' || typeof team !== 'string') return fail(res, 400, 'body must be {organization, team}');
  try {
    return sendJson(res, 200, { token: ctx.store.memberToken(organization, team) });
  } catch (err) {
    return fail(res, 404, (err as Error).message);
  }
}

/** `POST {organization, team, count}`: the team's members become `count` (users join or leave). */
async function teamUsers(ctx: SimulatorContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { organization, team, count } = (await readObject(req)) ?? {};
  if (typeof organization !== 'string' || typeof team !== 'string' || !isCount(count)) return fail(res, 400, 'body must be {organization, team, count}');
  try {
    return sendJson(res, 200, { users: ctx.store.setMemberCount(organization, team, count) });
  } catch (err) {
    return fail(res, 404, (err as Error).message);
  }
}

function state(ctx: SimulatorContext, res: http.ServerResponse): void {
  sendJson(res, 200, {
    requests: Object.fromEntries(ctx.requests),
    rate_limited_total: ctx.limiter.rejected,
    rate_limit_per_second: ctx.limiter.perSecond,
    organizations: Object.fromEntries(ctx.store.organizations().map((o) => [o.name, { teams: o.teams.length, users: o.users.size }])),
  });
}

/** `/_sim/...`: no authentication, never faulted or rate limited, so tests can always steer the simulator. */
export async function handleAdmin(ctx: SimulatorContext, req: http.IncomingMessage, res: http.ServerResponse, method: string, path: string): Promise<void> {
  switch (path.replace(/\/+$/, '')) {
    case '/_sim/faults/page':
      return pageFaults(ctx, method, req, res);
    case '/_sim/faults':
      return handleFaultAdmin(ctx.faults, method, req, res);
    case '/_sim/rate-limit':
      return rateLimit(ctx, method, req, res);
    case '/_sim/rate-limit/exhaust':
      return method === 'POST' ? exhaust(ctx, req, res) : fail(res, 405, 'use POST');
    case '/_sim/organizations':
      return organizations(ctx, method, req, res);
    case '/_sim/member-token':
      return method === 'POST' ? memberToken(ctx, req, res) : fail(res, 405, 'use POST');
    case '/_sim/team-users':
      return method === 'POST' ? teamUsers(ctx, req, res) : fail(res, 405, 'use POST');
    case '/_sim/telemetry':
      return telemetryAdmin(
        ctx.telemetry,
        ctx.store.organizations().map((o) => o.name),
        method,
        req,
        res,
      );
    case '/_sim/state':
      return state(ctx, res);
    default:
      return fail(res, 404, `no admin route ${path}`);
  }
}
