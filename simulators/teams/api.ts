import type http from 'node:http';
import { readJson, sendEmpty, sendJson, sendJsonBytes } from '../common/http.js';
import type { SimulatorContext } from './context.js';
import { badInclude, injectedFailure, notFound, tooManyRequests, unauthorized, unprocessable } from './errors.js';
import type { Organization, Principal, Team } from './model.js';
import { pageRequest, paginate } from './pagination.js';
import { includedResources, parseInclude, teamResource } from './team-resource.js';
import { validateTeamBody } from './validation.js';
import { teamInProfile } from './profiles.js';

const JSON_API = 'application/vnd.api+json';

/** What a route answers: a status and a JSON:API document (or its bytes, as kept), or no body (204). */
interface Reply {
  status: number;
  body?: unknown;
  bytes?: Buffer;
}

interface Call {
  ctx: SimulatorContext;
  principal: Principal;
  req: http.IncomingMessage;
  query: URLSearchParams;
  url: URL;
}

function bearerToken(req: http.IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

function isOwner(principal: Principal, org: string): boolean {
  return principal.kind === 'owner' && principal.organization === org;
}

/** A token of another organization learns nothing about this one: it gets the same 404 as a typo. */
function callerOrganization(call: Call, name: string): Organization | undefined {
  return call.principal.organization === name ? call.ctx.store.organization(name) : undefined;
}

async function readBody(req: http.IncomingMessage): Promise<{ ok: true; body: unknown } | { ok: false }> {
  try {
    return { ok: true, body: await readJson(req) };
  } catch {
    return { ok: false };
  }
}

const unreadableBody = (): Reply => unprocessable([{ title: 'malformed body', detail: 'Request body is not valid JSON', pointer: '' }]);

async function listTeams(call: Call, orgName: string): Promise<Reply> {
  const { ctx, principal, query } = call;
  const org = callerOrganization(call, orgName);
  if (!org) return notFound();
  const include = parseInclude(query.get('include'));
  if (!include) return badInclude(query.get('include') ?? '');
  const page = pageRequest(query, ctx.maxPageSize);
  const fault = ctx.pageFaults.get(page.number);
  if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
  if (fault?.status) return injectedFailure(fault.status);

  const key = `${principalKey(principal)} ${call.url.href}`;
  return { status: 200, bytes: ctx.pages.bytes(ctx.store.version, key, () => teamsPage(call, org, include)) };
}

/** Who is asking, as far as what a listing shows depends on it. */
const principalKey = (p: Principal): string => (p.kind === 'owner' ? `owner ${p.organization}` : `member ${p.organization} ${p.userId}`);

function teamsPage(call: Call, org: Organization, include: NonNullable<ReturnType<typeof parseInclude>>): unknown {
  const { ctx, principal, query } = call;
  const page = pageRequest(query, ctx.maxPageSize);
  const search = query.get('q')?.toLowerCase();
  const names = query.get('filter[names]');
  const wanted = names ? new Set(names.split(',').map((n) => n.trim())) : undefined;
  // an owner's unfiltered listing is the organization's own array: no copy of every team for each page
  const everyTeam = principal.kind === 'owner' && !search && !wanted;
  const teams = everyTeam
    ? org.teams
    : org.teams.filter((t) => ctx.store.canSee(principal, t) && (!search || t.name.toLowerCase().includes(search)) && (!wanted || wanted.has(t.name)));
  const { items, links, meta } = paginate(teams, page, call.url);
  const owner = isOwner(principal, org.name);
  return {
    data: items.map((t) => teamInProfile(teamResource(t, org, 'list', owner), ctx.profile)),
    ...(include.size > 0 ? { included: includedResources(items, org, include) } : {}),
    links,
    meta,
  };
}

async function createTeam(call: Call, orgName: string): Promise<Reply> {
  const org = callerOrganization(call, orgName);
  if (!org || !isOwner(call.principal, org.name)) return notFound();
  const read = await readBody(call.req);
  if (!read.ok) return unreadableBody();
  const store = call.ctx.store;
  const result = validateTeamBody(read.body, undefined, (name) => store.isNameTaken(org, name));
  if (!result.ok) return unprocessable(result.errors);
  const team = store.insertTeam(org, { ...result.changes, name: result.changes.name ?? '' });
  return { status: 200, body: { data: teamInProfile(teamResource(team, org, 'show', true), call.ctx.profile) } };
}

/** The team behind an id, if the caller may see it (and, with `manage`, change it). */
function reachableTeam(call: Call, id: string, manage: boolean): { team: Team; org: Organization } | undefined {
  const team = call.ctx.store.team(id);
  if (!team || !call.ctx.store.canSee(call.principal, team)) return undefined;
  if (manage && !isOwner(call.principal, team.organization)) return undefined;
  const org = call.ctx.store.organization(team.organization);
  return org ? { team, org } : undefined;
}

function showTeam(call: Call, id: string): Reply {
  const found = reachableTeam(call, id, false);
  if (!found) return notFound();
  const include = parseInclude(call.query.get('include'));
  if (!include) return badInclude(call.query.get('include') ?? '');
  const { team, org } = found;
  return {
    status: 200,
    body: {
      data: teamInProfile(teamResource(team, org, 'show', isOwner(call.principal, org.name)), call.ctx.profile),
      ...(include.size > 0 ? { included: includedResources([team], org, include) } : {}),
    },
  };
}

async function updateTeam(call: Call, id: string): Promise<Reply> {
  const found = reachableTeam(call, id, true);
  if (!found) return notFound();
  const { team, org } = found;
  const read = await readBody(call.req);
  if (!read.ok) return unreadableBody();
  const store = call.ctx.store;
  const result = validateTeamBody(read.body, team, (name) => store.isNameTaken(org, name, team.id));
  if (!result.ok) return unprocessable(result.errors);
  store.updateTeam(team, result.changes);
  return { status: 200, body: { data: teamInProfile(teamResource(team, org, 'show', true), call.ctx.profile) } };
}

function deleteTeam(call: Call, id: string): Reply {
  const found = reachableTeam(call, id, true);
  if (!found) return notFound();
  call.ctx.store.deleteTeam(found.team);
  return { status: 204 };
}

async function dispatch(call: Call, method: string, path: string): Promise<Reply> {
  const [api, version, collection, id, sub, ...rest] = path.split('/').filter(Boolean);
  if (api !== 'api' || version !== 'v2' || !id || rest.length > 0) return notFound();
  if (collection === 'organizations' && sub === 'teams') {
    if (method === 'GET') return listTeams(call, id);
    if (method === 'POST') return createTeam(call, id);
  }
  if (collection === 'teams' && sub === undefined) {
    if (method === 'GET') return showTeam(call, id);
    if (method === 'PATCH') return updateTeam(call, id);
    if (method === 'DELETE') return deleteTeam(call, id);
  }
  return notFound();
}

function send(res: http.ServerResponse, reply: Reply, headers: Record<string, string>): void {
  if (reply.bytes) return sendJsonBytes(res, reply.status, reply.bytes, headers, JSON_API);
  if (reply.body === undefined) {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return sendEmpty(res, reply.status);
  }
  sendJson(res, reply.status, reply.body, headers, JSON_API);
}

/** Serves `/api/v2/...`: authentication first (401 costs no budget), then the rate limit, then the route. */
export async function handleApi(
  ctx: SimulatorContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  request: { method: string; path: string; query: URLSearchParams },
): Promise<void> {
  const token = bearerToken(req);
  const principal = token === undefined ? undefined : ctx.store.principal(token);
  if (token === undefined || !principal) return send(res, unauthorized(), {});
  const verdict = ctx.limiter.take(token);
  if (!verdict.allowed) return send(res, tooManyRequests(), verdict.headers);
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const reply = await dispatch({ ctx, principal, req, query: request.query, url }, request.method, request.path);
  send(res, reply, verdict.headers);
}
