import type http from 'node:http';

/**
 * Request bodies read with bounds, and refusals that do not read them at all: a body sent to be
 * refused (no credentials, too large, too many at once) is never read to its end, and the
 * connection is closed after the answer instead of being drained for keep-alive.
 */

/** Whether a request still has body bytes on the wire. */
export function hasUnreadBody(req: http.IncomingMessage): boolean {
  if (req.complete || req.readableEnded) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Answers now; when the request's body has not been read, says `Connection: close` so Node closes
 * the socket once the answer is out instead of reading what is left of the body.
 */
export function refuse(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  body: string | object,
  headers: http.OutgoingHttpHeaders = {},
): void {
  if (res.headersSent) return void res.destroy();
  const json = typeof body !== 'string';
  const text = json ? JSON.stringify(body) : body;
  res.writeHead(status, {
    ...headers,
    'content-type': json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(hasUnreadBody(req) ? { connection: 'close' } : {}),
  });
  res.end(text);
}

export type BodyFailure = 'too_large' | 'aborted' | 'encoding';

export class BodyError extends Error {
  constructor(
    readonly kind: BodyFailure,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a body up to `limit` bytes. A declared Content-Length over the limit fails before a byte is
 * read; a chunked body fails as soon as it passes the limit (a 413 without reading the rest). A
 * compressed body is refused: nothing vigil receives is compressed, and inflating it is a bomb's door.
 */
export function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'identity') return reject(new BodyError('encoding', `content encoding ${JSON.stringify(encoding.slice(0, 40))} is not accepted`));
    const declared = Number(req.headers['content-length'] ?? NaN);
    const tooLarge = () => new BodyError('too_large', `body exceeds the limit of ${limit} bytes`);
    if (Number.isFinite(declared) && declared > limit) return reject(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: Error) => {
      req.off('data', onData).off('end', onEnd).off('aborted', onAborted).off('error', onAborted);
      if (err) {
        req.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) return done(tooLarge());
      chunks.push(c);
    };
    const onEnd = () => done();
    const onAborted = () => done(new BodyError('aborted', 'the client closed the connection before the body was complete'));
    req.on('data', onData).on('end', onEnd).on('aborted', onAborted).on('error', onAborted);
  });
}
