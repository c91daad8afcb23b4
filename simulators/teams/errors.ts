import type { FieldError } from './validation.js';

/**
 * Error bodies. The real service is not consistent, and clients must cope, so neither are we:
 *
 * | status | when                                         | body                                                    |
 * |--------|----------------------------------------------|---------------------------------------------------------|
 * | 400    | invalid `include`                            | `{errors:[{status: 400, title, detail}]}`  status NUMBER |
 * | 401    | missing or unknown bearer token              | `{errors:["unauthorized"]}`                PLAIN string  |
 * | 404    | unknown route/organization/team, not allowed | `{errors:[{status: 404, title: "not found"}]}` NUMBER    |
 * | 422    | malformed or invalid body                    | `{errors:[{status: "422", title, detail, source}]}` STRING |
 * | 429    | rate limit exceeded                          | `{errors:[{status: "429", title, detail}]}` STRING       |
 * | 5xx    | injected page fault                          | `{errors:[{status: "500", title, detail}]}` STRING       |
 */
export interface ErrorReply {
  status: number;
  body: { errors: unknown[] };
}

export function unauthorized(): ErrorReply {
  return { status: 401, body: { errors: ['unauthorized'] } };
}

export function notFound(): ErrorReply {
  return { status: 404, body: { errors: [{ status: 404, title: 'not found' }] } };
}

export function badInclude(include: string): ErrorReply {
  return {
    status: 400,
    body: { errors: [{ status: 400, title: 'bad request', detail: `Invalid include parameter: ${include}` }] },
  };
}

export function unprocessable(errors: FieldError[]): ErrorReply {
  return {
    status: 422,
    body: { errors: errors.map((e) => ({ status: '422', title: e.title, detail: e.detail, source: { pointer: e.pointer } })) },
  };
}

export function tooManyRequests(): ErrorReply {
  return {
    status: 429,
    body: { errors: [{ status: '429', title: 'Too many requests', detail: 'You have exceeded the API rate limit.' }] },
  };
}

export function injectedFailure(status: number): ErrorReply {
  return {
    status,
    body: { errors: [{ status: String(status), title: status >= 500 ? 'internal server error' : 'error', detail: 'injected page fault' }] },
  };
}
