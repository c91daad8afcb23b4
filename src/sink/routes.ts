import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { SecretFileError, type AuthOutcome, type SinkAuth } from './auth.js';
import type { RejectReason } from './families.js';
import { parsePayload, type Payload } from './payload-schema.js';
import { alertsQuery, encodeCursor, notificationsQuery, parseQuery } from './query.js';
import { StoreError, type AlertStore, type RecordResult } from './store.js';
import { alertView, healthView, notificationView, transitionView, type HealthView } from './views.js';

export const WEBHOOK_PATH = '/webhook/alertmanager';

export interface SinkRouteDeps {
  auth: SinkAuth;
  bodyLimit: number;
  store: AlertStore;
  log: Logger;
  /** Stores a valid notification durably; rejects with a StoreError when it cannot. */
  receive(payload: Payload, body: string): Promise<RecordResult>;
  /** Counts a refused webhook request. */
  refused(reason: RejectReason): void;
  health(): HealthView;
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** Alertmanager retries any 5xx; the code says why to whoever reads its log. */
const STORE_STATUS = { full: 507, busy: 503, unavailable: 503, failed: 500 } as const;
/** Seconds a sender should wait before sending again to a store that is busy or unavailable. */
const RETRY_AFTER = { busy: '1', unavailable: '5' } as const;

/** Body-parser failures: its `type` → how the sink answers. */
function bodyFailure(err: { type?: string }): { reason: RejectReason; status: number; error: string } {
  if (err.type === 'entity.too.large') return { reason: 'too_large', status: 413, error: 'body exceeds the body limit' };
  if (err.type === 'encoding.unsupported') return { reason: 'content_type', status: 415, error: 'unsupported content encoding' };
  return { reason: 'json', status: 400, error: 'cannot read the body' };
}

/**
 * POST /webhook/alertmanager and the read API. Answers are chosen for Alertmanager's retry rules:
 * it retries a 5xx until the group interval ends and never retries a 4xx, so a 200 is sent only
 * once the notification is durably stored, a 4xx only for a request that cannot ever succeed.
 */
export function sinkRouter(deps: SinkRouteDeps): Router {
  const router = Router();
  const readBody = express.raw({ type: () => true, limit: deps.bodyLimit });

  const refuse = (req: Request, res: Response, reason: RejectReason, status: number, error: string, extra: Record<string, string> = {}) => {
    deps.refused(reason);
    const level = status >= 500 ? 'error' : 'warn';
    deps.log[level]({ reason, status, err: error, remote: req.socket.remoteAddress, user_agent: req.headers['user-agent'] }, 'webhook notification refused');
    res.status(status).json({ error, ...extra });
  };

  router.post(
    WEBHOOK_PATH,
    async (req, res, next) => {
      let outcome: AuthOutcome;
      try {
        outcome = await deps.auth.check(req.headers.authorization);
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
    },
    readBody,
    async (req, res) => {
      const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const parsed = parsePayload(body);
      if (!parsed.ok) return refuse(req, res, parsed.reason, 400, parsed.error, parsed.field ? { field: parsed.field } : {});
      let result: RecordResult;
      try {
        result = await deps.receive(parsed.payload, body);
      } catch (e) {
        const kind = e instanceof StoreError ? e.kind : 'failed';
        deps.log.error({ err: (e as Error).message, receiver: parsed.payload.receiver, group_key: parsed.payload.groupKey }, 'cannot store notification');
        if (kind === 'busy' || kind === 'unavailable') res.setHeader('retry-after', RETRY_AFTER[kind]);
        const why = e instanceof StoreError && e.reason ? `${kind}: ${e.reason}` : kind;
        return refuse(req, res, 'store', STORE_STATUS[kind], `notification not stored (store ${why}); send it again`);
      }
      res.json({ status: result.duplicate ? 'duplicate' : 'stored', id: result.id });
    },
  );
  router.use(WEBHOOK_PATH, (err: { type?: string }, req: Request, res: Response, next: NextFunction) => {
    if (!err.type) return next(err);
    const f = bodyFailure(err);
    refuse(req, res, f.reason, f.status, f.error);
  });
  router.all(WEBHOOK_PATH, (_req, res) => {
    res.status(405).setHeader('allow', 'POST').json({ error: 'method not allowed: POST a webhook notification' });
  });

  router.get('/api/v1/alerts', async (req, res) => {
    const q = parseQuery(alertsQuery, req.query);
    if (!q.ok) return void res.status(400).json({ error: q.error, parameter: q.parameter });
    res.json({ alerts: (await deps.store.alerts(q.value)).map(alertView) });
  });

  router.get('/api/v1/alerts/:fingerprint/timeline', async (req, res) => {
    const t = await deps.store.timeline(req.params.fingerprint);
    if (!t) return void res.status(404).json({ error: `no alert with fingerprint ${JSON.stringify(req.params.fingerprint)}` });
    res.json({ alert: alertView(t.alert), transitions: t.transitions.map(transitionView) });
  });

  router.get('/api/v1/notifications', async (req, res) => {
    const q = parseQuery(notificationsQuery, req.query);
    if (!q.ok) return void res.status(400).json({ error: q.error, parameter: q.parameter });
    const page = await deps.store.notifications(q.value);
    res.json({ notifications: page.notifications.map(notificationView), nextCursor: page.next ? encodeCursor(page.next) : null });
  });

  router.get('/api/v1/health', (_req, res) => {
    const h = deps.health();
    res.status(h.healthy ? 200 : 503).json(healthView(h));
  });

  router.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    deps.log.error({ err: err.message }, 'alert sink request failed');
    // A read the store cannot answer now is never an empty (or partial) 200: the caller retries.
    if (err instanceof StoreError && (err.kind === 'busy' || err.kind === 'unavailable')) {
      res.setHeader('retry-after', RETRY_AFTER[err.kind]);
      return void res.status(503).json({ error: `alert store ${err.kind}${err.reason ? `: ${err.reason}` : ''}; try again` });
    }
    res.status(500).json({ error: 'internal error' });
  });
  return router;
}
