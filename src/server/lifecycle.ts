import type http from 'node:http';
import { Router } from 'express';
import { readBody, refuse } from '../support/request-body.js';

export interface LifecycleDeps {
  /** `--web.enable-lifecycle`: without it both endpoints answer 403 (Prometheus's convention). */
  enabled: boolean;
  reload: () => Promise<void>;
  collectNow: () => Promise<unknown>;
  /** `--web.collect-min-interval`: a /-/collect call this soon after the last run ended gets that run's answer. */
  collectMinIntervalMs?: number;
  now?: () => number;
}

/** How soon after a run's end /-/collect runs again by default: a loop of calls cannot multiply upstream load. */
export const COLLECT_MIN_INTERVAL_MS = 5000;

/** A lifecycle request may carry a JSON body this small at most (vigil reads none). */
const MAX_BODY_BYTES = 1024;

/**
 * Why a request could come from a web page on another site, or undefined. Browsers send a
 * cross-site POST without a preflight only with a CORS-simple content type (text/plain, forms) or
 * none; they mark it with Origin and Sec-Fetch-Site. `curl -XPOST` sends neither and no content type.
 */
export function crossSiteReason(req: http.IncomingMessage): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return `Sec-Fetch-Site: ${site}`;
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host !== req.headers.host) return 'Origin is another site';
  }
  return undefined;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * POST /-/reload and POST /-/collect. Each can make vigil call every upstream, so they are off
 * unless enabled, POST only, refused from other sites' pages, and /-/collect never runs twice at
 * once: a call while a run is going gets that run's summary, and so does one that arrives within
 * the minimum interval of the last run's end.
 */
export function lifecycleRouter(deps: LifecycleDeps): Router {
  const router = Router();
  const collect = collectOnce(deps);

  const gate = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> => {
    if (req.method !== 'POST') {
      refuse(req, res, 405, 'method not allowed: use POST\n', { allow: 'POST' });
      return false;
    }
    if (!deps.enabled) {
      refuse(req, res, 403, 'lifecycle endpoints are off: start vigil with --web.enable-lifecycle\n');
      return false;
    }
    const cross = crossSiteReason(req);
    if (cross) {
      refuse(req, res, 403, `refused: the request comes from a web page on another site (${cross})\n`);
      return false;
    }
    const type = req.headers['content-type'];
    if (type !== undefined && !JSON_TYPE.test(type)) {
      refuse(req, res, 415, 'send no body, or a JSON one with Content-Type: application/json\n');
      return false;
    }
    try {
      const body = await readBody(req, MAX_BODY_BYTES);
      if (body.length > 0) JSON.parse(body.toString('utf8'));
    } catch {
      refuse(req, res, 400, `send no body, or JSON of at most ${MAX_BODY_BYTES} bytes\n`);
      return false;
    }
    return true;
  };

  router.all('/-/reload', async (req, res) => {
    if (!(await gate(req, res))) return;
    try {
      await deps.reload();
      res.type('text/plain').send('configuration reloaded\n');
    } catch (e) {
      res
        .status(500)
        .type('text/plain')
        .send(`failed to reload config: ${(e as Error).message}\n`);
    }
  });

  // Runs every job now and answers when all are done, with what the run cost.
  router.all('/-/collect', async (req, res) => {
    if (!(await gate(req, res))) return;
    res.json(await collect());
  });

  return router;
}

/** Runs a collection, unless one is running (joined) or the last one ended within the interval (its answer). */
function collectOnce(deps: LifecycleDeps): () => Promise<unknown> {
  const now = deps.now ?? Date.now;
  const interval = deps.collectMinIntervalMs ?? COLLECT_MIN_INTERVAL_MS;
  let running: Promise<unknown> | undefined;
  let last: { endedAt: number; answer: unknown } | undefined;
  return () => {
    if (running) return running;
    if (last && now() - last.endedAt < interval) return Promise.resolve(last.answer);
    running = deps
      .collectNow()
      .then((answer) => {
        last = { endedAt: now(), answer };
        return answer;
      })
      .finally(() => (running = undefined));
    return running;
  };
}
