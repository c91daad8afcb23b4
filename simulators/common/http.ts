import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** A listening simulator endpoint. `close()` also ends hung and keep-alive connections. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** API requests received so far (the `/_sim/` admin routes left out): what a client costs this upstream. */
  requests(): number;
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

/** A certificate and key (PEM) to serve HTTPS with, e.g. a short-lived one to test expiry alerts. */
export interface ServeTls {
  cert: string | Buffer;
  key: string | Buffer;
  /** Require a client certificate that chains to these CAs, as an agent with `verify_https_client` or a secrets listener with `tls_require_and_verify_client_cert` does: without one, or with one from another CA, the handshake fails. */
  clientCa?: string | Buffer;
}

/**
 * How long each service keeps an idle keep-alive connection open, as the real one does: a client
 * polling every 15 s finds its connections still open there, and must here too. With Node's 5 s
 * every collection of a large estate connected again to every target (0: never closed by the server).
 */
export const IDLE_KEEP_ALIVE_MS = {
  /** The listener's `http_idle_timeout`, "5m" by default (developer.hashicorp.com vault/docs/configuration/listener/tcp). */
  secrets: 300_000,
  /**
   * None: the agent's HTTP server sets neither an idle nor a read timeout (hashicorp/nomad,
   * command/agent/http.go), so an idle connection stays until the client closes it.
   */
  agent: 0,
  /** Not documented by the service: Node's own default, the shortest of the three. */
  teams: 5_000,
} as const;

/**
 * Listens on host:port (port 0 picks a free one) and tracks sockets so a hang can be torn down.
 * With `tls`, it serves HTTPS. An idle connection is closed after `idleMs` (0: never).
 */
export async function listen(handler: Handler, port = 0, host = '127.0.0.1', tls?: ServeTls, idleMs = 5_000): Promise<RunningServer> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!(req.url ?? '').startsWith('/_sim')) requests += 1;
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { errors: [`simulator error: ${String(err)}`] });
      else res.destroy();
    });
  };
  const clientAuth = tls?.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {};
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key, ...clientAuth }, onRequest) : http.createServer(onRequest);
  server.keepAliveTimeout = idleMs;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://${host}:${addr.port}`,
    port: addr.port,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): void {
  sendJsonBytes(res, status, Buffer.from(JSON.stringify(body)), headers, contentType);
}

/**
 * JSON already encoded, sent as bytes: a large string handed to `res.end` is copied twice more
 * (joined to the head, then encoded), each time into memory new to the process.
 */
export function sendJsonBytes(
  res: http.ServerResponse,
  status: number,
  bytes: Buffer,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': bytes.length, ...headers });
  res.end(bytes);
}

/** A bare-text answer, as Go servers write their errors (text/plain). */
export function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendEmpty(res: http.ServerResponse, status = 204): void {
  res.writeHead(status);
  res.end();
}

/** Reads a request body as JSON; resolves `undefined` for an empty body and throws SyntaxError on garbage. */
export async function readJson(req: http.IncomingMessage, limit = 32 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RangeError('request body too large');
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Splits a request into method, path segments below `prefix`, and query. */
export function route(req: http.IncomingMessage): { method: string; path: string; query: URLSearchParams } {
  const u = new URL(req.url ?? '/', 'http://simulator');
  return { method: (req.method ?? 'GET').toUpperCase(), path: decodeURIComponent(u.pathname), query: u.searchParams };
}
