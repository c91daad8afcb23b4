import type http from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { BodyError, readBody, refuse as answer } from '../support/request-body.js';
import type { Logger } from 'pino';
import { capText } from '../support/cap-text.js';
import { SecretFileError, type AuthOutcome, type SinkAuth } from './auth.js';
import type { RejectReason } from './families.js';
import type { Hold, IntakeBudget } from './intake-budget.js';
import { jsonDepthExceedsInTurns } from './json-depth.js';
import { parsePayloadInTurns } from './payload-schema.js';
import { sinkRead, type ReadAnswer, type SinkRead } from './read-api.js';
import { StoreError, type AlertStore, type RecordResult } from './store/alert-store.js';
import type { Payload } from './store/payload.js';
import type { FoldCounts } from './value-folds.js';
import type { HealthView } from './views.js';

export const WEBHOOK_PATH = '/webhook/alertmanager';

export interface SinkRouteDeps {
  auth: SinkAuth;
  /** Whether the request passed web-config basic auth (then the read API asks nothing more). */
  authenticated: (req: http.IncomingMessage) => boolean;
  /** Notifications held from their first byte until the store settles them; past it a request is answered 503 before its body is read. */
  budget: IntakeBudget;
  bodyLimit: number;
  /** Nesting a body may have (deeper: 400), and the stored text one read answer may hold. */
  limits: { maxDepth: number; maxAnswerBytes: number };
  store: AlertStore;
  log: Logger;
  /** Stores a valid notification durably; rejects with a StoreError when it cannot (`cancelled` once `gone` aborts and it is dropped). */
  receive(payload: Payload, body: string, gone: AbortSignal): Promise<RecordResult>;
  /** Counts a refused webhook request. */
  refused(reason: RejectReason): void;
  /** Counts the values of a stored notification that were folded to their limit (value-folds.ts). */
  folded(counts: FoldCounts): void;
  health(): HealthView;
  /** The history's status pages (`/alerts...`), given the read API they show. */
  pages?: ((read: SinkRead) => RequestHandler) | undefined;
}

/** What checking a request's credentials takes: the same while the sink starts as once it runs. */
export type SinkCredentialDeps = Pick<SinkRouteDeps, 'auth' | 'authenticated' | 'log' | 'refused'>;

export { MAX_TRANSITIONS } from './read-api.js';

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** The read API and the history's pages: behind the read credentials. */
const READ_PATHS = ['/api/v1', '/alerts'];

const methodNotAllowed: RequestHandler = (_req, res) => {
  res.status(405).setHeader('allow', 'POST').json({ error: 'method not allowed: POST a webhook notification' });
};

/** Alertmanager retries any 5xx; the code says why to whoever reads its log. */
const STORE_STATUS = { full: 507, busy: 503, unavailable: 503, failed: 500, cancelled: 500 } as const;
/** Seconds a sender should wait before sending again to a store that is busy or unavailable. */
const RETRY_AFTER = { busy: '1', unavailable: '5' } as const;

/** Body read failures → how the sink answers. */
const BODY_FAILURE = {
  too_large: { reason: 'too_large', status: 413 },
  encoding: { reason: 'content_type', status: 415 },
  aborted: { reason: 'json', status: 400 },
} as const;

/** An error Express or body-parser raised for the request itself (a malformed %-escape, a bad body): a 4xx. */
const clientErrorStatus = (err: object): number | undefined => {
  const e = err as { status?: unknown; statusCode?: unknown };
  const s = Number(e.status ?? e.statusCode);
  return s >= 400 && s < 500 ? s : undefined;
};

type Refuse = (req: Request, res: Response, reason: RejectReason, status: number, error: string, extra?: Record<string, string>) => void;

/** Answers a refused webhook request, counts and logs it. It never reads the rest of the body: the connection is closed after the answer instead. */
function refuser(deps: SinkCredentialDeps): Refuse {
  return (req, res, reason, status, error, extra = {}) => {
    deps.refused(reason);
    const level = status >= 500 ? 'error' : 'warn';
    deps.log[level]({ reason, status, err: error, remote: req.socket.remoteAddress, user_agent: req.headers['user-agent'] }, 'webhook notification refused');
    // Headers set before (WWW-Authenticate, Retry-After) go out with it.
    answer(req, res, status, { error, ...extra });
  };
}

/** The webhook's credentials and content type, checked before its body is read. */
function webhookCredentials(deps: SinkCredentialDeps, refuse: Refuse): RequestHandler {
  return async (req, res, next) => {
    let outcome: AuthOutcome;
    try {
      outcome = !deps.auth.ownCredentials && deps.authenticated(req) ? 'ok' : await deps.auth.check(req.headers.authorization);
    } catch (e) {
      if (!(e instanceof SecretFileError)) throw e;
      deps.log.error({ err: e.message }, 'cannot read the sink credentials');
      return refuse(req, res, 'auth', 500, 'cannot check credentials');
    }
    if (outcome !== 'ok') {
      res.setHeader('www-authenticate', deps.auth.challenges());
      return refuse(req, res, 'auth', 401, outcome === 'missing' ? 'credentials required' : 'wrong credentials');
    }
    const type = req.headers['content-type'] ?? '';
    if (!JSON_TYPE.test(type)) return refuse(req, res, 'content_type', 415, `content type must be application/json, not ${JSON.stringify(type.slice(0, 60))}`);
    next();
  };
}

/**
 * Takes the notification's place in the budget (its declared length, else body_limit, until its body
 * is read) and reads the body; undefined once the request is refused (the place is then given back).
 */
async function webhookBody(deps: SinkRouteDeps, refuse: Refuse, req: Request, res: Response): Promise<{ body: string; hold: Hold } | undefined> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  const hold = deps.budget.take(Number.isFinite(declared) && declared >= 0 ? Math.min(declared, deps.bodyLimit) : deps.bodyLimit);
  if (!hold) {
    const { count, bytes } = deps.budget.usage;
    res.setHeader('retry-after', RETRY_AFTER.busy);
    return void refuse(req, res, 'overload', 503, `the sink holds ${count} notifications (${bytes} bytes) not yet stored, at its bound; send it again`);
  }
  try {
    const raw = await readBody(req, deps.bodyLimit);
    hold.shrink(raw.length);
    return { body: raw.toString('utf8'), hold };
  } catch (e) {
    hold.release();
    if (!(e instanceof BodyError)) throw e;
    const f = BODY_FAILURE[e.kind];
    return void refuse(req, res, f.reason, f.status, e.message);
  }
}

/** Aborts once the sender has closed its connection without an answer: what it sent is not stored then. */
function senderGone(res: Response): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => res.writableFinished || gone.abort());
  return gone.signal;
}

/** Reads, checks and stores a notification: 200 only once it is durably stored. */
function webhookStore(deps: SinkRouteDeps, refuse: Refuse): RequestHandler {
  return async (req, res) => {
    const gone = senderGone(res);
    const read = await webhookBody(deps, refuse, req, res);
    if (!read) return;
    try {
      await checkAndStore(deps, refuse, req, res, read.body, gone);
    } finally {
      read.hold.release();
    }
  };
}

async function checkAndStore(deps: SinkRouteDeps, refuse: Refuse, req: Request, res: Response, body: string, gone: AbortSignal): Promise<void> {
  if (await jsonDepthExceedsInTurns(body, deps.limits.maxDepth, nextTurn))
    return refuse(req, res, 'json', 400, `body nests deeper than ${deps.limits.maxDepth} levels`);
  const parsed = await parsePayloadInTurns(body, nextTurn);
  if (!parsed.ok) return refuse(req, res, parsed.reason, 400, parsed.error, parsed.field ? { field: parsed.field } : {});
  const sent = { receiver: capText(parsed.payload.receiver, 128), group_key: capText(parsed.payload.groupKey, 256) };
  let result: RecordResult;
  try {
    result = await deps.receive(parsed.payload, body, gone);
  } catch (e) {
    const kind = e instanceof StoreError ? e.kind : 'failed';
    if (kind === 'cancelled') {
      // Nobody is left to answer; the sender's retry (Alertmanager sends it again) is stored instead.
      deps.refused('sender_gone');
      return void deps.log.warn({ ...sent, remote: req.socket.remoteAddress }, 'notification dropped: the sender closed its connection before it was stored');
    }
    deps.log.error({ err: (e as Error).message, ...sent }, 'cannot store notification');
    if (kind === 'busy' || kind === 'unavailable') res.setHeader('retry-after', RETRY_AFTER[kind]);
    const why = e instanceof StoreError && e.reason ? `${kind}: ${e.reason}` : kind;
    return refuse(req, res, 'store', STORE_STATUS[kind], `notification not stored (store ${why}); send it again`);
  }
  if (Object.keys(parsed.folded).length > 0) {
    deps.folded(parsed.folded);
    deps.log.warn({ folded: parsed.folded, receiver: sent.receiver, id: result.id }, 'notification stored with long values folded');
  }
  res.json({ status: result.duplicate ? 'duplicate' : 'stored', id: result.id });
}

/** The read API is open when no credentials are configured anywhere, else it needs them. */
function readCredentials(deps: SinkCredentialDeps): RequestHandler {
  return async (req, res, next) => {
    if (deps.authenticated(req) || !deps.auth.readProtected) return next();
    let outcome: AuthOutcome;
    try {
      outcome = await deps.auth.checkRead(req.headers.authorization);
    } catch (e) {
      if (!(e instanceof SecretFileError)) return next(e);
      deps.log.error({ err: e.message }, 'cannot read the sink credentials');
      return answer(req, res, 500, { error: 'cannot check credentials' });
    }
    if (outcome === 'ok') return next();
    answer(req, res, 401, { error: outcome === 'missing' ? 'credentials required' : 'wrong credentials' }, { 'www-authenticate': deps.auth.readChallenges() });
  };
}

/** GET /api/v1/... and the status pages of the history (behind the same read credentials as the API they show). */
function readRoutes(router: Router, deps: SinkRouteDeps): void {
  const read = sinkRead(deps.store, deps.limits, deps.health);
  const send = <T>(res: Response, a: ReadAnswer<T>, ok: (v: T) => void) => (a.ok ? ok(a.value) : void res.status(a.status).json(a.body));
  router.get('/api/v1/alerts', async (req, res) => send(res, await read.alerts(req.query), (v) => res.json(v)));
  router.get('/api/v1/alerts/:fingerprint/timeline', async (req, res) => send(res, await read.timeline(req.params.fingerprint), (v) => res.json(v)));
  router.get('/api/v1/notifications', async (req, res) => send(res, await read.notifications(req.query), (v) => res.type('json').send(v)));
  router.get('/api/v1/health', (_req, res) => {
    const { healthy, ...body } = read.health();
    res.status(healthy ? 200 : 503).json(body);
  });
  if (deps.pages) router.use(deps.pages(read));
}

/** A failed request: 4xx for the request's own fault, 503 for a read the store cannot answer now, else 500. */
function failedRequest(deps: Pick<SinkRouteDeps, 'log'>) {
  return (err: Error, _req: Request, res: Response, _next: NextFunction) => {
    const status = clientErrorStatus(err);
    if (status !== undefined) return void res.status(status).json({ error: status === 400 ? 'malformed request (path or body)' : 'request refused' });
    deps.log.error({ err: err.message }, 'alert sink request failed');
    // A read the store cannot answer now is never an empty (or partial) 200: the caller retries.
    if (err instanceof StoreError && (err.kind === 'busy' || err.kind === 'unavailable')) {
      res.setHeader('retry-after', RETRY_AFTER[err.kind]);
      return void res.status(503).json({ error: `alert store ${err.kind}${err.reason ? `: ${err.reason}` : ''}; try again` });
    }
    res.status(500).json({ error: 'internal error' });
  };
}

/**
 * POST /webhook/alertmanager and the read API. Answers are chosen for Alertmanager's retry rules:
 * it retries a 5xx until the group interval ends and never retries a 4xx, so a 200 is sent only
 * once the notification is durably stored, a 4xx only for a request that cannot ever succeed.
 */
export function sinkRouter(deps: SinkRouteDeps): Router {
  const router = Router();
  const refuse = refuser(deps);
  router.post(WEBHOOK_PATH, webhookCredentials(deps, refuse), webhookStore(deps, refuse));
  router.all(WEBHOOK_PATH, methodNotAllowed);
  router.use(READ_PATHS, readCredentials(deps));
  readRoutes(router, deps);
  router.use(failedRequest(deps));
  return router;
}

/**
 * The same paths while the sink starts (its store opening): the same credentials are asked first,
 * so a stranger learns nothing of the sink's state, then a 503 that Alertmanager retries (not a 404).
 */
export function startingRouter(deps: SinkCredentialDeps): Router {
  const router = Router();
  const starting: RequestHandler = (req, res) => answer(req, res, 503, { error: 'the alert sink is starting: retry' }, { 'retry-after': '1' });
  router.post(WEBHOOK_PATH, webhookCredentials(deps, refuser(deps)), starting);
  router.all(WEBHOOK_PATH, methodNotAllowed);
  router.use(READ_PATHS, readCredentials(deps), starting);
  router.use(failedRequest(deps));
  return router;
}
