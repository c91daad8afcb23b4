import type http from 'node:http';
import { handleFaultAdmin } from '../common/faults.js';
import { ApiError, badRequest, notFound, ok, respond, type Reply } from './api-error.js';
import { isKind, randomBase62, secondaryState, type ClusterModel, type Kind, type Link } from './cluster.js';
import type { Fleet } from './fleet.js';
import { clearCorruption, corrupt } from './merkle.js';
import { advanceAttempt, anyOperationToken, attemptView, cancelAttempt, mintOperationToken, startAttempt, withoutOtp } from './operation-token.js';
import { primaryRole, secondaryRole } from './replication-roles.js';
import { optionalBool, readBody, requiredBool, type Body } from './request-body.js';
import { modelDump } from './model-dump.js';
import { NODE_ADMIN_ROUTES } from './node-admin.js';

/** Fault injection and inspection under `/_sim/`: no auth, never affected by faults or the seal. */
export async function handleAdmin(
  fleet: Fleet,
  cluster: ClusterModel,
  method: string,
  path: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const segments = path.split('/').slice(2);
  if (segments.join('/') === 'faults') return handleFaultAdmin(cluster.faults, method, req, res);
  await respond(res, async () => {
    const body = method === 'POST' ? await readBody(req) : {};
    const reply = adminRoute(fleet, cluster, method, segments, body);
    fleet.refresh();
    return reply;
  });
}

type AdminHandler = (fleet: Fleet, cluster: ClusterModel, body: Body, args: string[]) => Reply;

/** `*` matches one segment, handed to the handler in order. */
const ADMIN_ROUTES: Array<{ method: string; pattern: string; handler: AdminHandler }> = [
  { method: 'GET', pattern: 'state', handler: (_f, cluster) => ok(modelDump(cluster)) },
  { method: 'GET', pattern: 'key-shares', handler: (_f, cluster) => ok(keySharesView(cluster)) },
  {
    method: 'POST',
    pattern: 'seal',
    handler: (_f, cluster, body) => ((cluster.sealed = requiredBool(body, 'sealed')), ok({ sealed: cluster.sealed })),
  },
  { method: 'GET', pattern: 'quirks', handler: (_f, cluster) => ok(quirksView(cluster)) },
  { method: 'POST', pattern: 'quirks', handler: (_f, cluster, body) => setQuirks(cluster, body) },
  { method: 'POST', pattern: 'tokens', handler: (_f, cluster, body) => createToken(cluster, body) },
  {
    method: 'POST',
    pattern: 'dr-operation-token',
    handler: (_f, cluster, body) => ok({ dr_operation_token: optionalBool(body, 'new') ? mintOperationToken(cluster) : anyOperationToken(cluster) }),
  },
  // A DR operation token generation attempt, as key holders would drive it through the API.
  { method: 'POST', pattern: 'dr-token-attempt', handler: (_f, c) => (secondaryRole(c, 'dr'), ok(withoutOtp(startAttempt(c, undefined)))) },
  { method: 'POST', pattern: 'dr-token-attempt/advance', handler: (_f, c) => ok(advanceAttempt(c)) },
  { method: 'DELETE', pattern: 'dr-token-attempt', handler: (_f, c) => (cancelAttempt(c), ok(attemptView(c))) },
  { method: 'POST', pattern: 'replication/*/secondaries/*/disconnect', handler: (_f, c, body, a) => setConnected(c, a, false, body) },
  { method: 'POST', pattern: 'replication/*/secondaries/*/connect', handler: (_f, c, body, a) => setConnected(c, a, true, body) },
  { method: 'POST', pattern: 'replication/*/secondaries/*/heartbeat', handler: (_f, c, body, a) => setHeartbeat(c, a, body) },
  { method: 'POST', pattern: 'replication/*/wal/advance', handler: (fleet, c, body, a) => advanceWal(fleet, c, kindArg(a), body) },
  { method: 'POST', pattern: 'replication/*/wal/follow', handler: (fleet, c, _b, a) => followWal(fleet, c, kindArg(a)) },
  { method: 'POST', pattern: 'replication/*/state', handler: (_f, c, body, a) => overrideState(c, kindArg(a), body) },
  { method: 'POST', pattern: 'replication/*/merkle/corrupt', handler: (_f, c, body, a) => corruptMerkle(c, kindArg(a), body) },
  {
    method: 'DELETE',
    pattern: 'replication/*/merkle/corrupt',
    handler: (_f, c, _b, a) => (clearCorruption(c.replication[kindArg(a)]), ok({ corrupted_merkle_tree: false })),
  },
  ...NODE_ADMIN_ROUTES.map((r) => ({ ...r, handler: ((_f, c, body, a) => r.handler(c, body, a)) as AdminHandler })),
];

function adminRoute(fleet: Fleet, cluster: ClusterModel, method: string, segments: string[], body: Body): Reply {
  let pathMatched = false;
  for (const route of ADMIN_ROUTES) {
    const parts = route.pattern.split('/');
    if (parts.length !== segments.length) continue;
    const args: string[] = [];
    const matches = parts.every((part, i) => {
      const seg = segments[i] ?? '';
      if (part === '*') args.push(seg);
      return part === '*' ? seg !== '' : part === seg;
    });
    if (!matches) continue;
    pathMatched = true;
    if (route.method === method) return route.handler(fleet, cluster, body, args);
  }
  if (pathMatched) throw new ApiError(405, [`${method} is not supported on /_sim/${segments.join('/')}`]);
  throw notFound(`no simulator admin route /_sim/${segments.join('/')}`);
}

function kindArg(args: string[]): Kind {
  const kind = args[0];
  if (!isKind(kind)) throw notFound(`unknown replication kind "${kind}"`);
  return kind;
}

function linkArg(cluster: ClusterModel, args: string[]): Link {
  const kind = kindArg(args);
  const id = args[1] ?? '';
  const link = primaryRole(cluster, kind).links.get(id);
  if (!link) throw notFound(`no activated ${kind} secondary "${id}" on this primary`);
  return link;
}

function linkView(link: Link): Reply {
  return ok({
    secondary_id: link.secondaryId,
    connected: link.adminConnected,
    listed: link.listed,
    heartbeat_stopped: link.heartbeatStopped,
    ended: link.ended,
  });
}

function setConnected(cluster: ClusterModel, args: string[], connected: boolean, body: Body): Reply {
  const link = linkArg(cluster, args);
  link.adminConnected = connected;
  if (connected) link.listed = true;
  else if (optionalBool(body, 'remove')) link.listed = false;
  return linkView(link);
}

function setHeartbeat(cluster: ClusterModel, args: string[], body: Body): Reply {
  const link = linkArg(cluster, args);
  link.heartbeatStopped = requiredBool(body, 'stopped');
  return linkView(link);
}

function advanceWal(fleet: Fleet, cluster: ClusterModel, kind: Kind, body: Body): Reply {
  const role = primaryRole(cluster, kind);
  const by = body.by ?? 1;
  if (typeof by !== 'number' || !Number.isInteger(by) || by < 0) throw badRequest('"by" must be a non-negative integer');
  if (optionalBool(body, 'secondaries_follow') === false) for (const link of role.links.values()) link.following = false;
  role.lastWal += by;
  fleet.refresh();
  return ok({ last_wal: role.lastWal });
}

function followWal(fleet: Fleet, cluster: ClusterModel, kind: Kind): Reply {
  const role = primaryRole(cluster, kind);
  for (const link of role.links.values()) link.following = true;
  fleet.refresh();
  return ok({ last_wal: role.lastWal });
}

function overrideState(cluster: ClusterModel, kind: Kind, body: Body): Reply {
  const role = secondaryRole(cluster, kind);
  const state = body.state;
  if (state === null) delete role.stateOverride;
  else if (typeof state === 'string' && state !== '') role.stateOverride = state;
  else throw badRequest('"state" must be a non-empty string or null');
  return ok({ state: secondaryState(role) });
}

function corruptMerkle(cluster: ClusterModel, kind: Kind, body: Body): Reply {
  const treeType = body.tree_type ?? 'replicated';
  if (treeType !== 'replicated' && treeType !== 'local') throw badRequest('"tree_type" must be "replicated" or "local"');
  const tree = body.tree;
  if (tree !== undefined && typeof tree !== 'string' && typeof tree !== 'number') throw badRequest('"tree" must be a string or number');
  const root = optionalBool(body, 'root') ?? false;
  // A request that names nothing to corrupt would answer "corrupted" and change nothing.
  if (tree === undefined && !root) throw badRequest('say what to corrupt: "root": true, or a "tree"');
  corrupt(cluster.replication[kind], {
    ...(tree !== undefined ? { tree: String(tree) } : {}),
    treeType,
    pages: pagesArg(body.pages),
    root,
    subtreeRoot: optionalBool(body, 'subtree_root') ?? false,
  });
  return ok({ corrupted_merkle_tree: true });
}

function pagesArg(pages: unknown): Map<string, number[]> | null {
  if (pages === undefined || pages === null) return null;
  if (typeof pages !== 'object' || Array.isArray(pages)) throw badRequest('"pages" must be an object of page number to subpages');
  const entries = Object.entries(pages as Record<string, unknown>).map(([page, subpages]): [string, number[]] => {
    if (!Array.isArray(subpages) || !subpages.every((n): n is number => Number.isInteger(n))) {
      throw badRequest(`subpages of page "${page}" must be an array of integers`);
    }
    return [page, subpages];
  });
  return new Map(entries);
}

function keySharesView(cluster: ClusterModel): Record<string, unknown> {
  return {
    keys: cluster.keys.shares,
    keys_base64: cluster.keys.shares.map((k) => Buffer.from(k, 'hex').toString('base64')),
    threshold: cluster.keys.threshold,
  };
}

function quirksView(cluster: ClusterModel): Record<string, boolean> {
  const q = cluster.quirks;
  return { omit_state: q.omitState, numbers_as_strings: q.numbersAsStrings, extra_fields: q.extraFields, omit_peer_lists: q.omitPeerLists };
}

function setQuirks(cluster: ClusterModel, body: Body): Reply {
  const q = cluster.quirks;
  q.omitState = optionalBool(body, 'omit_state') ?? q.omitState;
  q.numbersAsStrings = optionalBool(body, 'numbers_as_strings') ?? q.numbersAsStrings;
  q.extraFields = optionalBool(body, 'extra_fields') ?? q.extraFields;
  q.omitPeerLists = optionalBool(body, 'omit_peer_lists') ?? q.omitPeerLists;
  return ok(quirksView(cluster));
}

function createToken(cluster: ClusterModel, body: Body): Reply {
  const token = `s.${randomBase62(24)}`;
  const sudo = optionalBool(body, 'sudo') ?? false;
  cluster.tokens.set(token, { sudo });
  return ok({ token, sudo });
}
