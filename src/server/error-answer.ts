import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';

/** The status an error carries (express and its middleware set one: 400 for a malformed URI, 404 for a missing file), else 500. */
function statusOf(err: unknown): number {
  const { status, statusCode } = (typeof err === 'object' && err !== null ? err : {}) as { status?: unknown; statusCode?: unknown };
  const s = Number(status ?? statusCode);
  return Number.isInteger(s) && s >= 400 && s <= 599 ? s : 500;
}

/**
 * The last handler of every express app vigil makes. express's own prints the error's stack (and in
 * it the machine's paths) unless NODE_ENV is "production", which `npm start` does not set; this one
 * answers the status and its name only, in every mode, as JSON like the 404. Nothing the client
 * sent is shown. A failure of vigil's own (5xx) is logged with its message; a client's error is not.
 */
export function errorAnswer(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const status = statusOf(err);
    if (status >= 500) log.error({ err: err instanceof Error ? err.message : String(err), method: req.method, status }, 'cannot answer a request');
    // Part of an answer is gone already: the client can only be told by the connection ending.
    if (res.headersSent) return void res.destroy();
    res.status(status).json({ error: (STATUS_CODES[status] ?? 'error').toLowerCase() });
  };
}
