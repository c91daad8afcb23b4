import type http from 'node:http';
import { sendEmpty, sendJson } from '../common/http.js';

/** A refusal the real service would answer with `{"errors": [...]}` and this status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors.join('; '));
  }
}

/** What a sealed node answers (503) to whatever needs its storage. The real server words it "Vault is sealed"; this simulator speaks of the service. */
export const SEALED = 'service is sealed';

export const badRequest = (message: string): ApiError => new ApiError(400, [message]);
export const notFound = (message = 'unsupported path'): ApiError => new ApiError(404, [message]);
export const permissionDenied = (): ApiError => new ApiError(403, ['permission denied']);

/** What a handler answers; 204 carries no body. */
export interface Reply {
  status: number;
  body?: unknown;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const noContent = (): Reply => ({ status: 204 });

/** Runs a handler and turns its reply, or the ApiError it threw, into the HTTP answer. */
export async function respond(res: http.ServerResponse, handler: () => Reply | Promise<Reply>): Promise<void> {
  try {
    const reply = await handler();
    if (reply.status === 204) sendEmpty(res);
    else sendJson(res, reply.status, reply.body ?? {});
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    sendJson(res, err.status, { errors: err.errors }, err.headers);
  }
}
