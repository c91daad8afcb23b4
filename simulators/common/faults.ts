import type http from 'node:http';
import { readJson, sendJson, sendEmpty } from './http.js';
import { varyEachAnswer } from './varying-answers.js';

/**
 * Faults a simulated service can be told to show, on every API request (the `/_sim/` admin routes
 * are never affected). Each is independent; several may be on at once.
 */
export interface Faults {
  /** Accept the request and never answer (until the fault is cleared or the server closes). */
  hang: boolean;
  /** Answer 200 with a body that is not JSON. */
  garbage: boolean;
  /** Delay every answer by this many milliseconds. */
  delayMs: number;
  /** Make every answer's bytes differ from the last (see `varyEachAnswer`): a service whose answers all change between polls. */
  vary: boolean;
  /**
   * Change what the service holds a little before each answer that shows it: an agent moves a
   * failed member along its gossip pool before each `/v1/agent/members` answer, so the pool's lines
   * differ from the last poll's (`vary` changes the bytes, not what they say).
   */
  churn: boolean;
  /** Answer with this status and body instead of the real one. `times` limits how often (undefined: always). */
  status?: { code: number; body: unknown; times?: number; headers?: Record<string, string> };
}

export function noFaults(): Faults {
  return { hang: false, garbage: false, delayMs: 0, vary: false, churn: false };
}

const GARBAGE = '{"data": {"mode": "primary", <<<not json';

/**
 * Applies the active faults. Returns true when the fault fully handled the request (the caller must
 * not answer it), false when the real handler should answer (after any delay).
 */
export async function applyFaults(faults: Faults, res: http.ServerResponse): Promise<boolean> {
  if (faults.hang) {
    // Keep the socket open and silent; close() of the server destroys it.
    return true;
  }
  if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
  if (faults.vary) varyEachAnswer(res);
  if (faults.garbage) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(GARBAGE);
    return true;
  }
  const st = faults.status;
  if (st) {
    if (st.times !== undefined) {
      st.times -= 1;
      if (st.times <= 0) delete faults.status;
    }
    sendJson(res, st.code, st.body, st.headers ?? {});
    return true;
  }
  return false;
}

/**
 * The admin side of faults: `GET /_sim/faults` shows them, `POST /_sim/faults` merges a JSON body
 * `{hang?, garbage?, delay_ms?, vary?, churn?, status?: {code, body, times?}}`, `DELETE /_sim/faults` clears them.
 */
export async function handleFaultAdmin(faults: Faults, method: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (method === 'GET') return sendJson(res, 200, faults);
  if (method === 'DELETE') {
    Object.assign(faults, noFaults());
    delete faults.status;
    return sendEmpty(res);
  }
  if (method !== 'POST') return sendJson(res, 405, { errors: ['use GET, POST or DELETE'] });
  const body = (await readJson(req)) as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return sendJson(res, 400, { errors: ['body must be a JSON object'] });
  if (typeof body.hang === 'boolean') faults.hang = body.hang;
  if (typeof body.garbage === 'boolean') faults.garbage = body.garbage;
  if (typeof body.delay_ms === 'number') faults.delayMs = body.delay_ms;
  if (typeof body.vary === 'boolean') faults.vary = body.vary;
  if (typeof body.churn === 'boolean') faults.churn = body.churn;
  if (body.status && typeof body.status === 'object') {
    const s = body.status as { code?: unknown; body?: unknown; times?: unknown; headers?: unknown };
    if (typeof s.code !== 'number') return sendJson(res, 400, { errors: ['status.code must be a number'] });
    faults.status = {
      code: s.code,
      body: s.body ?? { errors: ['injected fault'] },
      ...(typeof s.times === 'number' ? { times: s.times } : {}),
      ...(s.headers && typeof s.headers === 'object' ? { headers: s.headers as Record<string, string> } : {}),
    };
  }
  return sendJson(res, 200, faults);
}
